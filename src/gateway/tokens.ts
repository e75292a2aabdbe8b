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
  /** What logs and metrics call this caller (never the token). @default the scope */
  readonly name?: string | undefined;
  /** This token's documents running at once, in this gateway (else `limits.maxInFlight`). */
  readonly maxInFlight?: number | undefined;
  /** How long this token's documents past its in-flight limit wait for a slot (else `limits.queueWaitMs`). */
  readonly queueWaitMs?: number | undefined;
  /** This token's upstream calls per `intervalMs` (else `limits.rate`); `false`: no limit. */
  readonly rate?: false | { readonly requests: number; readonly intervalMs: number } | undefined;
}

/** What the gateway knows of a token once checked: everything but the token itself. */
export type TokenEntry = Omit<GatewayToken, 'token'> & { readonly name: string };

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

const NAME_TEXT = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The table the gateway looks callers up in; checks each entry as {@link parseGatewayTokens} does.
 * A token listed twice is refused, naming both entries (`read:T,write:T` pasted by mistake would
 * otherwise let a page's token run mutations). `where` names the entries as the operator wrote them.
 */
export function tokenTable(tokens: string | readonly GatewayToken[], where: (index: number) => string = (index) => `tokens[${index}]`): Map<string, TokenEntry> {
  const fromText = typeof tokens === 'string';
  const list = fromText ? parseGatewayTokens(tokens) : tokens;
  const name = fromText ? (index: number) => `RUNPOD_GATEWAY_TOKENS entry ${index + 1}` : where;
  const table = new Map<string, TokenEntry>();
  const at = new Map<string, number>();
  list.forEach((entry, index) => {
    if (!isScope(entry?.scope)) throw new ValidationError(`${name(index)}.scope`, "must be 'catalog', 'read' or 'write'");
    checkToken(entry, name(index));
    if (entry.name !== undefined && (typeof entry.name !== 'string' || !NAME_TEXT.test(entry.name))) throw new ValidationError(`${name(index)}.name`, 'must be 1 to 64 letters, digits, . _ or -');
    checkTokenLimits(entry, name(index));
    const before = at.get(entry.token);
    if (before !== undefined) {
      const first = list[before]!;
      throw new ValidationError(name(index), `holds the same token as ${name(before)} (${first.scope} and ${entry.scope}): each token has one scope; give each entry its own token`);
    }
    at.set(entry.token, index);
    const { token: _token, ...rest } = entry;
    table.set(entry.token, { ...rest, name: entry.name ?? entry.scope });
  });
  return table;
}

const positiveInteger = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) > 0;

function checkTokenLimits(entry: GatewayToken, field: string): void {
  if (entry.maxInFlight !== undefined && !positiveInteger(entry.maxInFlight)) throw new ValidationError(`${field}.maxInFlight`, 'must be an integer above 0');
  if (entry.queueWaitMs !== undefined && !(Number.isSafeInteger(entry.queueWaitMs) && entry.queueWaitMs >= 0)) throw new ValidationError(`${field}.queueWaitMs`, 'must be an integer ≥ 0');
  const rate = entry.rate;
  if (rate !== undefined && rate !== false && !(positiveInteger(rate?.requests) && positiveInteger(rate?.intervalMs))) throw new ValidationError(`${field}.rate`, 'must be false or { requests, intervalMs } with integers above 0');
}

/** The credential in `Authorization: Bearer …`, or undefined. */
export function bearerOf(request: Request): string | undefined {
  const header = request.headers.get('authorization');
  const match = header ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
  return match?.[1];
}
