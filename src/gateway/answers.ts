// What the gateway answers once a document ran (or failed to): the HTTP status, headers and body,
// the same whichever upstream ran it. A failure that concerns the whole request (the caller's key
// refused, RunPod's rate limit, an ambiguous create, RunPod unreachable) is answered by its status,
// whether the client threw it (RunPod's GraphQL) or a resolver met it (in process over REST v2).
import type { ExecutionResult, GraphQLError } from 'graphql';
import {
  AuthenticationError,
  ConnectionError,
  PermissionDeniedError,
  PossiblyCreatedError,
  RateLimitError,
  RunpodError,
  ServerError,
  TimeoutError,
  ValidationError,
} from '../errors.js';
import { LimitExceededError } from './budget.js';
import type { GatewayErrorEntry, Refusal } from './protocol.js';

/** A gateway answer before it is written: status, body and extra headers. */
export interface GatewayAnswer {
  readonly status: number;
  readonly body: GatewayBody;
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/** A GraphQL answer's body, as the gateway writes it. */
export interface GatewayBody {
  readonly data?: ExecutionResult['data'];
  readonly errors?: readonly GatewayErrorEntry[] | undefined;
  readonly extensions?: Record<string, unknown> | undefined;
}

/** How one failure that concerns the whole request is answered. */
interface WholeRequestStatus {
  readonly status: number;
  readonly code: string;
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/** `Retry-After` in whole seconds, at least 1, from the client's hint. */
const retryAfterSeconds = (ms: number | undefined): string => String(ms === undefined ? 1 : Math.max(1, Math.ceil(ms / 1000)));

/**
 * The one table of failures that concern the whole request, undefined for any other (a field's
 * own). In pass-through mode the key refused is the caller's, said as RunPod says it; otherwise it
 * is the gateway's own key, which no caller can fix.
 */
function wholeRequestStatus(err: RunpodError, passThrough: boolean): WholeRequestStatus | undefined {
  if (err instanceof AuthenticationError) {
    return passThrough ? { status: 401, code: 'UNAUTHENTICATED', headers: { 'www-authenticate': 'Bearer error="invalid_token"' } } : { status: 502, code: `UPSTREAM_${err.name}` };
  }
  if (err instanceof PermissionDeniedError && passThrough) return { status: 403, code: 'FORBIDDEN' };
  if (err instanceof PossiblyCreatedError) return { status: 502, code: 'POSSIBLY_CREATED' };
  // The gateway's own bound on a document's work, as its other limits are answered.
  if (err instanceof LimitExceededError) return { status: 400, code: err.code };
  if (err instanceof RateLimitError) return { status: 503, code: 'UPSTREAM_RATE_LIMITED', headers: { 'retry-after': retryAfterSeconds(err.retryAfterMs) } };
  if (err instanceof ServerError || err instanceof ConnectionError || err instanceof TimeoutError) return { status: 502, code: `UPSTREAM_${err.name}` };
  return undefined;
}

/** What a typed error adds to its entry's `extensions`: what the caller needs to act on it. */
function errorExtensions(err: RunpodError): Record<string, unknown> {
  const extensions: Record<string, unknown> = {};
  // A create without a marker (a network volume, registry credentials) says what to look for instead.
  if (err instanceof PossiblyCreatedError) {
    if (err.createMarker) extensions.createMarker = err.createMarker;
    else if (err.lookFor) extensions.lookFor = err.lookFor;
  }
  if (err instanceof LimitExceededError) Object.assign(extensions, { code: err.code, limit: err.limit });
  if (err instanceof RateLimitError && err.retryAfterMs !== undefined) extensions.retryAfterMs = err.retryAfterMs;
  if (err.requestId !== undefined) extensions.requestId = err.requestId;
  return extensions;
}

/** The answer to a failure the client threw (RunPod's GraphQL, or a refusal before sending). */
export function thrownAnswer(err: unknown, passThrough: boolean): GatewayAnswer {
  if (!(err instanceof RunpodError)) {
    return { status: 500, body: { errors: [{ message: 'the gateway failed to run the operation', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] } };
  }
  const entry = (code: string): GatewayBody => ({ errors: [{ message: err.message, extensions: { code, ...errorExtensions(err) } }] });
  if (err instanceof ValidationError) return { status: 400, body: entry(err.name === 'TransportUnsupportedError' ? 'TRANSPORT_UNSUPPORTED' : 'BAD_USER_INPUT') };
  const whole = wholeRequestStatus(err, passThrough);
  if (whole) return { status: whole.status, body: entry(whole.code), headers: whole.headers };
  // Anything else from upstream (a 404 on a route, a 410 with --upstream graphql): the caller cannot fix it.
  return { status: 502, body: entry(`UPSTREAM_${err.name}`) };
}

/** A field error as its entry, with what its typed error adds (`createMarker`, `retryAfterMs`, `requestId`). */
function fieldEntry(error: GraphQLError): GatewayErrorEntry {
  const entry = error.toJSON() as GatewayErrorEntry;
  const original = error.originalError;
  if (!(original instanceof RunpodError)) return entry;
  return { ...entry, extensions: { ...entry.extensions, ...errorExtensions(original) } };
}

/**
 * The answer to a document the gateway stopped. RunPod's pause past the gateway's wait (its reads
 * were aborted rather than held): what was read is 200 with its data, each stopped field a
 * rate-limit error with `retryAfterMs`; nothing read is 503 with RunPod's `Retry-After`. Any other
 * stop (504 past the deadline) keeps what ran before it, field errors with what their typed errors
 * add (a create's `createMarker`), after the stop's own error.
 */
export function stoppedAnswer(result: ExecutionResult, stopped: Refusal): GatewayAnswer {
  const errors = (result.errors ?? []).map(fieldEntry);
  if (stopped.code !== 'UPSTREAM_RATE_LIMITED') {
    return { status: stopped.status, headers: stopped.headers, body: { data: result.data, errors: [{ message: stopped.message, extensions: { code: stopped.code } }, ...errors] } };
  }
  const retryAfterMs = Number(stopped.headers?.['retry-after'] ?? 1) * 1000;
  if (!hasData(result.data)) return { status: 503, headers: stopped.headers, body: { errors: [{ message: stopped.message, extensions: { code: stopped.code, retryAfterMs } }] } };
  const paused = errors.map((e) => (e.extensions?.code === 'AbortError' ? { ...e, message: stopped.message, extensions: { code: 'RateLimitError', retryAfterMs } } : e));
  return { status: 200, body: { data: result.data, errors: paused } };
}

/**
 * True when `data` holds a value anywhere: something the caller asked for was done or read. An
 * object holding only nulls (`{ myself: { pods: null } }`, where `myself` is a wrapper that reads
 * nothing) is no data; a list, even empty, is a read that succeeded.
 */
function hasData(data: unknown): boolean {
  if (data === null || data === undefined) return false;
  if (typeof data !== 'object' || Array.isArray(data)) return true;
  for (const key in data) if (hasData((data as Record<string, unknown>)[key])) return true;
  return false;
}

/**
 * The answer to a document that ran. A result with no data at all whose errors include a failure of
 * the whole request is answered with that failure's status (the most pressing one: 401, 403, 502,
 * 503 in that order) and every error, without `data` (a non-2xx GraphQL answer carries none). A
 * result with any data is 200: what was done or read is never reported as failed. A result with
 * errors and no `data` entry is the upstream's refusal of the request itself: 400.
 */
export function resultAnswer(result: ExecutionResult, passThrough: boolean): GatewayAnswer {
  // Informational fields answered null (src/field-map/types.ts): named in the answer, never an error.
  const warnings = Array.isArray(result.extensions?.warnings) ? { extensions: { warnings: result.extensions.warnings } } : undefined;
  if (!result.errors?.length) return { status: 200, body: { data: result.data, ...warnings } };
  const errors = result.errors.map(fieldEntry);
  if (result.data === undefined) return { status: 400, body: { errors } };
  if (!hasData(result.data)) {
    let worst: WholeRequestStatus | undefined;
    const wholeErrors = result.errors.map((error, index) => {
      const original = error.originalError;
      const whole = original instanceof RunpodError ? wholeRequestStatus(original, passThrough) : undefined;
      if (!whole) return errors[index]!;
      if (!worst || whole.status < worst.status) worst = whole;
      // Named as the same failure is when the client throws it (RunPod's GraphQL upstream).
      return { ...errors[index]!, extensions: { ...errors[index]!.extensions, code: whole.code } };
    });
    if (worst) return { status: worst.status, headers: worst.headers, body: { errors: wholeErrors } };
  }
  return { status: 200, body: { data: result.data, errors, ...warnings } };
}

/** What a proxy's request id may be to be kept: short, and nothing that could forge a log line. */
const TRUSTED_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** Most upstream request ids an answer lists: one document makes at most a few dozen calls. */
const MAX_UPSTREAM_IDS = 64;

/**
 * The request ids of one gateway request: the gateway's own (also its `x-request-id` header) and
 * those of the upstream answers it caused, which RunPod's support asks for.
 */
export class RequestIds {
  readonly gateway: string;
  private readonly upstream: string[] = [];

  /** `trusted`: the proxy's `X-Request-Id`, where the operator trusts it (else one is made). */
  constructor(trusted?: string | null) {
    this.gateway = trusted && TRUSTED_ID.test(trusted) ? trusted : `gw_${globalThis.crypto.randomUUID()}`;
  }

  /** Records one upstream answer's id (bounded, without repeats). */
  add(id: string | undefined): void {
    if (id !== undefined && this.upstream.length < MAX_UPSTREAM_IDS && !this.upstream.includes(id)) this.upstream.push(id);
  }

  /** Records the ids a typed error carries, from an upstream answer the request did not see answered. */
  addFrom(errors: readonly GraphQLError[] | undefined, thrown?: unknown): void {
    if (thrown instanceof RunpodError) this.add(thrown.requestId);
    for (const error of errors ?? []) if (error.originalError instanceof RunpodError) this.add(error.originalError.requestId);
  }

  /** Rewrites each upstream id with `scrub` (src/gateway/scrub.ts: the env values the document read). */
  scrubUpstream(scrub: (id: string) => string): void {
    for (let i = 0; i < this.upstream.length; i++) this.upstream[i] = scrub(this.upstream[i]!);
  }

  /** `extensions.requestIds` of the answer. */
  toJSON(): { gateway: string; upstream: string[] } {
    return { gateway: this.gateway, upstream: this.upstream };
  }
}

/**
 * A variable that failed coercion, named by its field without its value: graphql-js quotes the
 * value (`got invalid value "…"`, and its own reason may quote it again), and a variable may hold
 * a password or an env value.
 */
export function coercionEntry(error: GraphQLError): GatewayErrorEntry {
  const named = /^Variable "\$([A-Za-z_][A-Za-z0-9_]*)" got invalid value /.exec(error.message);
  if (!named) return { message: error.message, extensions: { code: 'BAD_USER_INPUT' } };
  const name = named[1]!;
  const at = new RegExp(` at "(${name}(?:\\.[A-Za-z_][A-Za-z0-9_]*|\\[\\d+\\])*)"; `).exec(error.message.slice(named[0].length));
  const field = at ? at[1]! : name;
  return { message: `Variable "$${name}" got an invalid value at "${field}": it does not fit the type the schema declares there (the value is not repeated)`, extensions: { code: 'BAD_USER_INPUT', field } };
}

/**
 * `answer` for a caller that may not read env values (a `read` or `catalog` token): RunPod's own
 * words after an HTTP status (`… failed with HTTP 500: <detail>`, `… (HTTP 422): <detail>`) can quote a pod's or a template's
 * env, so they are withheld; the status, the code and the request id stay.
 */
export function withheldDetails(answer: GatewayAnswer, scope: string): GatewayAnswer {
  const errors = answer.body.errors;
  if (scope === 'write' || !errors?.some((e) => UPSTREAM_DETAIL.test(e.message))) return answer;
  const note = `$1 (RunPod's details are withheld from a ${scope} token: they can quote env values)`;
  return { ...answer, body: { ...answer.body, errors: errors.map((e) => (UPSTREAM_DETAIL.test(e.message) ? { ...e, message: e.message.replace(UPSTREAM_DETAIL, note) } : e)) } };
}

/**
 * RunPod's own words after the status in an upstream error's message: the core writes them after
 * `failed with HTTP 500:` and, for a 422, after `refused by the server (HTTP 422):`
 * (`src/transport/error-mapping.ts`). One pattern for every stage that withholds them.
 */
export const UPSTREAM_DETAIL = /(failed with HTTP \d{3}\b|\(HTTP \d{3}\))[\s\S]*$/;
