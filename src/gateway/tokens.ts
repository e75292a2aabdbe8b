import { ValidationError } from '../errors.js';

/**
 * What a gateway token may do: `catalog` reads the GPU catalog only (what a public price page
 * needs: no account data), `read` runs queries of every field but those that can hold a secret's
 * value (`Pod.env`), `write` reads those too and runs mutations. Which field needs which scope is
 * the field map's (src/field-map/).
 */
export type GatewayScope = 'catalog' | 'read' | 'write';

const SCOPES: readonly GatewayScope[] = ['catalog', 'read', 'write'];
const isScope = (value: unknown): value is GatewayScope => SCOPES.includes(value as GatewayScope);

/** One caller's credential at the gateway. The token is a secret: it is never logged or echoed. */
export interface GatewayToken {
  readonly scope: GatewayScope;
  readonly token: string;
}

/** Shortest token accepted: a guessable token would open the account. */
export const MIN_TOKEN_LENGTH = 16;
// RFC 6750's b64token, the syntax of a Bearer credential.
const TOKEN_TEXT = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Parses `RUNPOD_GATEWAY_TOKENS`: comma-separated `scope:token` entries (`read:…,write:…`).
 * A wrong entry is a ValidationError that names its position, never its text.
 */
export function parseGatewayTokens(text: string): GatewayToken[] {
  const entries = text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  return entries.map((entry, index) => {
    const colon = entry.indexOf(':');
    const scope = colon < 0 ? '' : entry.slice(0, colon);
    const token = colon < 0 ? '' : entry.slice(colon + 1);
    if (!isScope(scope)) {
      throw new ValidationError('RUNPOD_GATEWAY_TOKENS', `entry ${index + 1} must be catalog:TOKEN, read:TOKEN or write:TOKEN`);
    }
    return checkToken({ scope, token }, `RUNPOD_GATEWAY_TOKENS entry ${index + 1}`);
  });
}

function checkToken(entry: GatewayToken, field: string): GatewayToken {
  if (typeof entry.token !== 'string' || !TOKEN_TEXT.test(entry.token)) {
    throw new ValidationError(field, 'token must be a Bearer token: letters, digits and - . _ ~ + / (then = padding)');
  }
  if (entry.token.length < MIN_TOKEN_LENGTH) throw new ValidationError(field, `token must be at least ${MIN_TOKEN_LENGTH} characters, got ${entry.token.length}`);
  return entry;
}

/** The table the gateway looks callers up in; checks each entry as {@link parseGatewayTokens} does. */
export function tokenTable(tokens: string | readonly GatewayToken[]): Map<string, GatewayScope> {
  const list = typeof tokens === 'string' ? parseGatewayTokens(tokens) : tokens;
  const table = new Map<string, GatewayScope>();
  list.forEach((entry, index) => {
    if (!isScope(entry?.scope)) throw new ValidationError(`tokens[${index}].scope`, "must be 'catalog', 'read' or 'write'");
    checkToken(entry, `tokens[${index}]`);
    // A token listed twice keeps its widest scope.
    const before = table.get(entry.token);
    if (before === undefined || SCOPES.indexOf(entry.scope) > SCOPES.indexOf(before)) table.set(entry.token, entry.scope);
  });
  return table;
}

/** The credential in `Authorization: Bearer …`, or undefined. */
export function bearerOf(request: Request): string | undefined {
  const header = request.headers.get('authorization');
  const match = header ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
  return match?.[1];
}
