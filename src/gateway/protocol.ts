// GraphQL over HTTP (the GraphQL Foundation's draft): how a request's parameters are read and how
// an answer is written, for both media types. Nothing here knows about tokens or upstreams.
import { readWithin } from '../emulator/http-guards.js';
import { isRecord } from '../transport/shape.js';

export const GRAPHQL_RESPONSE = 'application/graphql-response+json';
export const JSON_TYPE = 'application/json';

/** The request's parameters, before the document is looked up, parsed or checked. */
export interface GraphQLParams {
  readonly query?: string | undefined;
  /** A persisted document's id (`documentId`, or Apollo's `extensions.persistedQuery.sha256Hash`). */
  readonly documentId?: string | undefined;
  readonly operationName?: string | undefined;
  readonly variables?: Record<string, unknown> | undefined;
  readonly extensions?: Record<string, unknown> | undefined;
}

/** One error entry of a GraphQL answer. */
export interface GatewayErrorEntry {
  readonly message: string;
  readonly path?: ReadonlyArray<string | number> | undefined;
  readonly extensions?: Record<string, unknown> | undefined;
}

/** A refusal before execution: an HTTP status, one GraphQL error, and extra headers. */
export class Refusal {
  constructor(
    readonly status: number,
    readonly message: string,
    readonly code: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

/**
 * The media type to answer with, from `Accept`: the GraphQL one when asked for, JSON for JSON,
 * `*\/*` or no header; undefined when the caller accepts neither (406).
 */
export function negotiate(accept: string | null): typeof GRAPHQL_RESPONSE | typeof JSON_TYPE | undefined {
  if (!accept) return JSON_TYPE;
  // A client sends the same Accept on every request: the last one's answer is kept (it depends on the text alone).
  if (accept === lastAccept) return lastMedia;
  const media = negotiated(accept);
  if (accept.length <= MAX_REMEMBERED_HEADER) [lastAccept, lastMedia] = [accept, media];
  return media;
}

/** Longest header text whose reading is remembered for the next request. */
const MAX_REMEMBERED_HEADER = 512;
let lastAccept: string | undefined;
let lastMedia: ReturnType<typeof negotiate>;

function negotiated(accept: string): ReturnType<typeof negotiate> {
  const types = accept.split(',').map((part) => {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return { type, q: q ? Number(q.slice(2)) : 1 };
  }).filter((t) => t.q > 0);
  if (types.some((t) => t.type === GRAPHQL_RESPONSE)) return GRAPHQL_RESPONSE;
  if (types.some((t) => t.type === JSON_TYPE || t.type === '*/*' || t.type === 'application/*')) return JSON_TYPE;
  return undefined;
}

const optionalString = (value: unknown, name: string): string | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new Refusal(400, `\`${name}\` must be a string`, 'BAD_REQUEST');
  return value;
};

const optionalMap = (value: unknown, name: string): Record<string, unknown> | undefined => {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw new Refusal(400, `\`${name}\` must be an object`, 'BAD_REQUEST');
  return value;
};

function paramsOf(raw: Record<string, unknown>): GraphQLParams {
  const extensions = optionalMap(raw.extensions, 'extensions');
  const persisted = isRecord(extensions?.persistedQuery) ? extensions.persistedQuery : undefined;
  const hash = persisted === undefined ? undefined : optionalString(persisted.sha256Hash, 'extensions.persistedQuery.sha256Hash');
  return {
    query: optionalString(raw.query, 'query'),
    documentId: optionalString(raw.documentId, 'documentId') ?? hash,
    operationName: optionalString(raw.operationName, 'operationName'),
    variables: optionalMap(raw.variables, 'variables'),
    extensions,
  };
}

/** GET parameters: `variables` and `extensions` are JSON text. */
export function paramsFromSearch(search: URLSearchParams): GraphQLParams {
  const json = (name: string): unknown => {
    const text = search.get(name);
    if (text === null || text === '') return undefined;
    try {
      return JSON.parse(text);
    } catch {
      throw new Refusal(400, `\`${name}\` must be JSON`, 'BAD_REQUEST');
    }
  };
  return paramsOf({
    query: search.get('query') ?? undefined,
    documentId: search.get('documentId') ?? undefined,
    operationName: search.get('operationName') ?? undefined,
    variables: json('variables'),
    extensions: json('extensions'),
  });
}

// One decoder for every request: a whole-buffer decode (no `stream`) keeps no state between calls.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads at most `maxBytes` of the body (more is a 413 without reading the rest), as UTF-8. */
export async function readBody(request: Request, maxBytes: number): Promise<string> {
  const tooLarge = () => new Refusal(413, `the request body is over the gateway's limit of ${maxBytes} bytes`, 'BODY_TOO_LARGE');
  const length = request.headers.get('content-length');
  const declared = length === null ? NaN : Number(length);
  if (declared > maxBytes) throw tooLarge();
  let bytes: Uint8Array | undefined;
  if (Number.isSafeInteger(declared) && declared >= 0) {
    // A declared length within the limit: the listener (Node's HTTP parser, a Worker's runtime)
    // delivers exactly that many bytes, so the body is read whole, on the adapter's fast path
    // (`arrayBuffer()` skips building a Web stream: about 200 µs of a 1,250 µs request). The size
    // is checked again, for a Request built in process whose header says less than its body.
    bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > maxBytes) throw tooLarge();
  } else {
    // No length (chunked): counted while it arrives, and cut at the limit.
    if (!request.body) return '';
    bytes = await readWithin(request.body, maxBytes);
    if (!bytes) throw tooLarge();
  }
  try {
    return utf8.decode(bytes);
  } catch {
    throw new Refusal(400, 'the request body is not UTF-8', 'BAD_REQUEST');
  }
}

const requestLineLimits = new WeakMap<object, number>();

/** Records the gateway's own limit on a query string, which its Node listener's header limit must exceed. */
export function attachQueryLimit(gateway: object, maxBytes: number): void {
  requestLineLimits.set(gateway, maxBytes);
}

/** The header limit a listener needs for `gateway`: its query-string limit plus Node's own 16 KB for the rest. */
export function listenerHeaderBytes(gateway: object): number {
  return (requestLineLimits.get(gateway) ?? 0) + 16_384;
}

let acceptedContentType: string | null | undefined;

/** Throws the 415 for a Content-Type the gateway does not read: JSON, in UTF-8. */
function checkContentType(contentType: string | null): void {
  const [type = '', ...params] = (contentType ?? '').split(';').map((s) => s.trim().toLowerCase());
  if (!contentType) throw new Refusal(415, 'a POST needs `Content-Type: application/json`', 'UNSUPPORTED_MEDIA_TYPE');
  if (type !== JSON_TYPE && type !== 'application/graphql+json') throw new Refusal(415, 'the body must be `application/json`', 'UNSUPPORTED_MEDIA_TYPE');
  // RFC 9110 allows the value quoted: `charset="utf-8"`.
  const charset = params.find((p) => p.startsWith('charset='))?.slice(8).replace(/^"(.*)"$/, '$1');
  if (charset && charset !== 'utf-8' && charset !== 'utf8') throw new Refusal(415, 'the body must be UTF-8', 'UNSUPPORTED_MEDIA_TYPE');
}

/** POST parameters: a JSON object, in `application/json` (UTF-8, the charset assumed when none is given). */
export async function paramsFromPost(request: Request, maxBytes: number): Promise<GraphQLParams> {
  const contentType = request.headers.get('content-type');
  // The last accepted Content-Type is remembered: a client sends the same one every time.
  if (contentType !== acceptedContentType) {
    checkContentType(contentType);
    if (contentType!.length <= MAX_REMEMBERED_HEADER) acceptedContentType = contentType;
  }
  const text = await readBody(request, maxBytes);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Refusal(400, 'the request body is not JSON', 'BAD_REQUEST');
  }
  if (!isRecord(raw)) throw new Refusal(400, 'the request body must be a JSON object', 'BAD_REQUEST');
  return paramsOf(raw);
}
