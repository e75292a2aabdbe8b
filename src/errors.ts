import type { RateLimitWindow } from './transport/rate-limit-headers.js';
import { redactText, redactValue, SCRUBBED, summaryScope, withSummaryScope, type SecretScope } from './transport/redact.js';
import { isRecord } from './transport/shape.js';

/**
 * Every error this client throws is a {@link RunpodError}; subclasses say why.
 * No error carries the API key: URLs are held without it, and bodies and messages are scrubbed.
 */

/** What was being sent when an error happened. The URL never contains the API key. */
export interface RequestSummary {
  readonly method: string;
  readonly url: string;
  /** GraphQL operation name, REST route or serverless action, e.g. `DeployPod` or `POST /pods`. */
  readonly operation: string;
}

export interface RunpodErrorOptions {
  request?: RequestSummary | undefined;
  cause?: unknown;
  requestId?: string | undefined;
}

// Scrubbing never fails on its own, but nothing it meets may turn an error into another one: a
// throwing getter in a cause, a proxy, an exhausted stack. Whatever cannot be scrubbed is withheld,
// and the error keeps its class, so what an answer means never changes.
const WITHHELD = '[withheld: could not be scrubbed]';
// The scope of the call whose error is being built (its request summary says which): construction
// is synchronous and every subclass calls `super` first, so its own fields are scrubbed with it too.
let building: SecretScope | undefined;
function safeText(text: string): string {
  try {
    return building ? building.scrub(String(text)) : redactText(String(text));
  } catch {
    return WITHHELD;
  }
}
/** Longest `message` of any error: a 20 MB server text is quoted by its beginning. */
export const MAX_MESSAGE_CHARS = 4096;
function safeMessage(message: string): string {
  const text = String(message);
  // Scrubbed before it is cut, so no key is cut in half and left partly readable.
  if (text.length <= MAX_MESSAGE_CHARS) return safeText(text);
  const scrubbed = safeText(text.slice(0, 16 * MAX_MESSAGE_CHARS));
  return `${scrubbed.slice(0, MAX_MESSAGE_CHARS)}…[truncated]`;
}
function safeValue<T>(value: T): T {
  try {
    return redactValue(value, building);
  } catch {
    return WITHHELD as T;
  }
}

/** Root of every error thrown by runpod-gql. */
export class RunpodError extends Error {
  override readonly name: string = 'RunpodError';
  declare readonly request: RequestSummary | undefined;
  /**
   * The server's id for the answer this error comes from (`x-request-id`, else `x-runpod-request-id`,
   * else a serverless worker's `x-runpod-worker-id`): what RunPod support asks for. Undefined when
   * no answer came, or it carried none.
   */
  declare readonly requestId: string | undefined;

  constructor(message: string, options: RunpodErrorOptions = {}) {
    building = summaryScope(options.request);
    // Scrubbed here, at the root, so no surface can forget: the message (and so the stack), the
    // cause and the request; subclasses keep scrubbed copies of what they carry.
    super(safeMessage(message), options.cause === undefined ? undefined : { cause: safeValue(options.cause) });
    // The copy keeps the call's scope: an error built from this one (a create's, around it) is scrubbed alike.
    const request = safeValue(options.request);
    this.request = request && withSummaryScope(request, building);
    if (options.requestId !== undefined) this.requestId = safeText(options.requestId);
  }

  /** Marks errors that scrubbed themselves, so a cause chain is not rebuilt. */
  get [SCRUBBED](): true {
    return true;
  }

  /** `JSON.stringify(err)` gives the name, the message and every public field (scrubbed), not `{}`. */
  toJSON(): object {
    // The fields were scrubbed when the error was built; a foreign cause shows its name and message.
    const cause: unknown = this.cause;
    return Object.assign({ name: this.name, message: this.message }, this, { cause: cause instanceof Error && !(cause instanceof RunpodError) ? { name: cause.name, message: cause.message } : cause });
  }
}

/**
 * Bad input. Usually refused before anything was sent; `status: 422` when the server refused it,
 * with the server's own list of problems in `errors`.
 */
export class ValidationError extends RunpodError {
  override readonly name: string = 'ValidationError';
  /** The offending field, e.g. `gpuCount` or `input.ports`. */
  declare readonly field: string;
  /** The server's problems (REST v2 `errors[]`), when the server refused the request. */
  declare readonly errors: readonly string[];
  /** 422 when the server refused the request; undefined when nothing was sent. */
  declare readonly status: number | undefined;
  declare readonly body: unknown;

  constructor(
    field: string,
    message: string,
    options: RunpodErrorOptions & { errors?: readonly string[]; status?: number; body?: unknown } = {},
  ) {
    super(`${field}: ${message}`, options);
    this.field = field;
    this.errors = safeValue(options.errors ?? []);
    this.status = options.status;
    this.body = safeValue(options.body);
  }
}

/**
 * An input that the path this call takes cannot honour (today: REST v2, which `rp.pods` uses once
 * GraphQL is retired or with `podsTransport: 'rest'`), e.g. a resume with `gpuCount: 0` or a
 * placement minimum. Refused before anything is sent, rather than dropped or changed. `fields`
 * names every such input field.
 */
export class TransportUnsupportedError extends ValidationError {
  override readonly name = 'TransportUnsupportedError';
  declare readonly fields: readonly string[];

  constructor(fields: readonly string[], message: string, options: RunpodErrorOptions = {}) {
    super(fields.join(', '), message, options);
    this.fields = [...fields];
  }
}

export interface ApiErrorOptions extends RunpodErrorOptions {
  status: number;
  /** The response body: parsed JSON when it was JSON, otherwise the (truncated) text. */
  body?: unknown;
  headers?: Readonly<Record<string, string>> | undefined;
}

/** The server answered with an HTTP error status. */
export class ApiError extends RunpodError {
  override readonly name: string = 'ApiError';
  declare readonly status: number;
  declare readonly body: unknown;
  /** Response headers, scrubbed of secrets. */
  declare readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(message: string, options: ApiErrorOptions) {
    super(message, options);
    this.status = options.status;
    this.body = safeValue(options.body);
    this.headers = safeValue(options.headers);
  }
}

/** 400, 409, 422 and other 4xx answers not covered by a more specific class. */
export class BadRequestError extends ApiError {
  override readonly name = 'BadRequestError';
}
/**
 * 409: the request conflicts with the resource's current state, e.g. `start` on a RUNNING pod.
 * `resourceStatus` and `validActions` say what is possible now, when known.
 */
export class ConflictError extends ApiError {
  override readonly name = 'ConflictError';
  declare readonly resourceStatus: string | undefined;
  declare readonly validActions: readonly string[] | undefined;

  constructor(message: string, options: ApiErrorOptions & { resourceStatus?: string | undefined; validActions?: readonly string[] | undefined }) {
    super(message, options);
    this.resourceStatus = safeValue(options.resourceStatus);
    this.validActions = safeValue(options.validActions);
  }
}
/** 410: the API answered that this interface is retired. `replacement` names what to use instead. */
export class ApiRetiredError extends ApiError {
  override readonly name = 'ApiRetiredError';
  declare readonly replacement: string | undefined;

  constructor(message: string, options: ApiErrorOptions & { replacement?: string | undefined }) {
    super(message, options);
    this.replacement = options.replacement;
  }
}
/** 401: the API key is missing, wrong or disabled. */
export class AuthenticationError extends ApiError {
  override readonly name = 'AuthenticationError';
}
/** 403: the key is valid but may not do this. */
export class PermissionDeniedError extends ApiError {
  override readonly name = 'PermissionDeniedError';
}
/** 404, or a resource that does not exist (or has expired, for serverless jobs). */
export class NotFoundError extends ApiError {
  override readonly name = 'NotFoundError';
}
/**
 * 429 after all retries. `retryAfterMs` is the server's hint, when it gave one; `rateLimit` the
 * quota windows the answer announced (REST v2 `RateLimit` / `RateLimit-Policy`), when it did.
 */
export class RateLimitError extends ApiError {
  override readonly name = 'RateLimitError';
  declare readonly retryAfterMs: number | undefined;
  declare readonly rateLimit: readonly RateLimitWindow[] | undefined;

  constructor(message: string, options: ApiErrorOptions & { retryAfterMs?: number | undefined; rateLimit?: readonly RateLimitWindow[] | undefined }) {
    super(message, options);
    this.retryAfterMs = options.retryAfterMs;
    this.rateLimit = safeValue(options.rateLimit);
  }
}
/** 5xx after all retries that were allowed, or a 2xx that was not the JSON it should have been. */
export class ServerError extends ApiError {
  override readonly name: string = 'ServerError';
}

export interface GraphQLErrorEntry {
  readonly message: string;
  readonly path?: ReadonlyArray<string | number>;
  readonly extensions?: { readonly code?: string; readonly [key: string]: unknown };
}

/** The GraphQL response carried `errors`. `data` holds whatever partial data came with them. */
export class GraphQLResponseError<TData = unknown> extends RunpodError {
  override readonly name: string = 'GraphQLResponseError';
  declare readonly errors: readonly GraphQLErrorEntry[];
  declare readonly data: TData | null | undefined;
  declare readonly operationName: string | undefined;
  /** `extensions.code` of the first error, e.g. `RUNPOD` or `INTERNAL_SERVER_ERROR`. */
  declare readonly code: string | undefined;
  declare readonly status: number;

  constructor(
    message: string,
    options: RunpodErrorOptions & {
      errors: readonly GraphQLErrorEntry[];
      data?: TData | null | undefined;
      operationName?: string | undefined;
      status: number;
    },
  ) {
    super(message, options);
    this.errors = safeValue(options.errors);
    this.data = safeValue(options.data);
    this.operationName = options.operationName;
    this.code = options.errors[0]?.extensions?.code;
    this.status = options.status;
  }
}

/**
 * The platform has no machine matching the request right now ("There are no longer any instances
 * available…"). Nothing was created. Try another GPU type, cloud or count, or later.
 */
export class CapacityUnavailableError extends RunpodError {
  override readonly name = 'CapacityUnavailableError';
  declare readonly status: number | undefined;
  declare readonly operationName: string | undefined;

  constructor(message: string, options: RunpodErrorOptions & { status?: number; operationName?: string | undefined }) {
    super(message, options);
    this.status = options.status;
    this.operationName = options.operationName;
  }
}

/**
 * The account's balance is too low for this (REST 402, or GraphQL's "Your account balance is too
 * low…"). Nothing was created.
 */
export class InsufficientBalanceError extends RunpodError {
  override readonly name = 'InsufficientBalanceError';
  declare readonly status: number | undefined;

  constructor(message: string, options: RunpodErrorOptions & { status?: number | undefined }) {
    super(message, options);
    this.status = options.status;
  }
}

/**
 * A create failed in a way that leaves it unknown whether the resource exists (a generic error
 * after effect, a 5xx, a cut connection, a time-out), and looking it up by its marker could not
 * settle it. `cause` is the original failure. Find the resource by `createMarker` (it is in the
 * pod's environment) and terminate it if it is not wanted.
 */
export class PossiblyCreatedError extends RunpodError {
  override readonly name = 'PossiblyCreatedError';
  readonly possiblyCreated = true;
  /**
   * The marker this client put into the create request; it survives into the resource's `env`.
   * Empty for a resource without an `env` (network volumes, registries, delegations).
   */
  declare readonly createMarker: string;
  /**
   * What to look for instead when there is no marker (`createMarker` empty): the name that was sent
   * and where such resources are listed, e.g. `one named "ghcr" in GET /registries`.
   */
  declare readonly lookFor: string | undefined;

  constructor(message: string, options: RunpodErrorOptions & { createMarker: string; lookFor?: string | undefined }) {
    super(message, options);
    this.createMarker = options.createMarker;
    if (options.lookFor !== undefined) this.lookFor = safeText(options.lookFor);
  }
}

/** The request could not be sent or its answer could not be read (DNS, refused, reset). */
export class ConnectionError extends RunpodError {
  override readonly name = 'ConnectionError';
  /** True when the failure proves the request never reached the server (safe to resend). */
  declare readonly notSent: boolean;

  constructor(message: string, options: RunpodErrorOptions & { notSent: boolean }) {
    super(message, options);
    this.notSent = options.notSent;
  }
}

/** An attempt, or a wait such as `waitUntilReady`, ran past its time limit. */
export class TimeoutError extends RunpodError {
  override readonly name = 'TimeoutError';
  declare readonly timeoutMs: number;

  constructor(message: string, options: RunpodErrorOptions & { timeoutMs: number }) {
    super(message, options);
    this.timeoutMs = options.timeoutMs;
  }
}

/** The caller's `AbortSignal` fired. */
export class AbortError extends RunpodError {
  override readonly name = 'AbortError';
}

/**
 * A pod reached a state it will not come back from by itself while being waited for. `reason` is
 * the platform's `lastStatusChange`, e.g. the CUDA requirement error of an image too new for its host.
 */
export class PodTerminalStateError extends RunpodError {
  override readonly name = 'PodTerminalStateError';
  declare readonly podId: string;
  declare readonly desiredStatus: string;
  declare readonly reason: string | undefined;

  constructor(podId: string, desiredStatus: string, reason?: string | null) {
    super(`pod ${podId} is ${desiredStatus}; it will not become ready${reason ? `: ${reason}` : ''}`);
    this.podId = podId;
    this.desiredStatus = desiredStatus;
    this.reason = reason == null ? undefined : safeText(reason);
  }
}

/** A serverless job as the status route reports it (kept on job errors so nothing is lost). */
export interface JobSnapshot {
  readonly id: string;
  readonly status: string;
  readonly error?: unknown;
  readonly output?: unknown;
  readonly [field: string]: unknown;
}

/** Root of the errors about one serverless job; always carries the job id. */
export class JobError extends RunpodError {
  override readonly name: string = 'JobError';
  declare readonly jobId: string;
  declare readonly endpointId: string;
  /** The last state seen. */
  declare readonly job: JobSnapshot;

  constructor(message: string, options: RunpodErrorOptions & { endpointId: string; job: JobSnapshot }) {
    super(message, options);
    this.jobId = safeText(String(options.job.id));
    this.endpointId = options.endpointId;
    this.job = safeValue(options.job);
  }
}

/** What a worker's handler raised, parsed from the FAILED job's JSON-encoded `error`. */
export interface JobFailureDetails {
  /** The exception's type, e.g. `<class 'ValueError'>`. */
  readonly errorType: string | undefined;
  readonly message: string;
  readonly traceback: string | undefined;
  readonly hostname: string | undefined;
  readonly workerId: string | undefined;
  readonly runpodVersion: string | undefined;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The handler's exception when `error` is the platform's JSON-encoded object; undefined otherwise. */
export function parseJobFailure(error: string): JobFailureDetails | undefined {
  if (!error.trimStart().startsWith('{')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(error);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  const fields = parsed;
  const message = optionalString(fields.error_message);
  if (message === undefined && optionalString(fields.error_type) === undefined) return undefined;
  return {
    errorType: optionalString(fields.error_type),
    message: message ?? '',
    traceback: optionalString(fields.error_traceback),
    hostname: optionalString(fields.hostname),
    workerId: optionalString(fields.worker_id),
    runpodVersion: optionalString(fields.runpod_version),
  };
}

/**
 * The job ended FAILED. `error` is the worker's error string as sent. When the handler raised,
 * `details` holds the parsed exception (also on `errorType`, `errorMessage`, `traceback`,
 * `workerId`); when the handler returned `{ error, ...rest }`, `output` holds the rest.
 */
export class JobFailedError extends JobError {
  override readonly name = 'JobFailedError';
  /** The raw `error` string. */
  declare readonly error: string;
  declare readonly details: JobFailureDetails | undefined;
  declare readonly errorType: string | undefined;
  /** The handler's message: the parsed `error_message`, or the raw string. */
  declare readonly errorMessage: string;
  declare readonly traceback: string | undefined;
  declare readonly workerId: string | undefined;
  /** The job's `output`, when the FAILED answer carried one. */
  declare readonly output: unknown;

  constructor(options: RunpodErrorOptions & { endpointId: string; job: JobSnapshot }) {
    const reported = safeValue(options.job.error);
    const error = safeText(typeof reported === 'string' ? reported : (JSON.stringify(reported ?? 'unknown error') ?? String(reported)));
    // Parsed from the scrubbed text, so every field below is scrubbed too.
    const details = parseJobFailure(error);
    const summary = details ? `${details.errorType ? `${details.errorType}: ` : ''}${details.message}` : error;
    super(`job ${options.job.id} on endpoint ${options.endpointId} failed: ${summary}`, options);
    this.error = error;
    this.details = details;
    this.errorType = details?.errorType;
    this.errorMessage = details ? details.message : error;
    this.traceback = details?.traceback;
    this.workerId = details?.workerId;
    this.output = safeValue(options.job.output);
  }
}

/**
 * The job ran out of time. `source: 'platform'`: it ended TIMED_OUT (its execution timeout).
 * `source: 'deadline'`: this client stopped waiting; the job may still be running, so wait again
 * with `endpoint.job(jobId).wait()` or cancel it. `jobId` is `''` when the deadline passed before
 * `/runsync` answered (a job may have been queued, but its id never came back).
 */
export class JobTimedOutError extends JobError {
  override readonly name = 'JobTimedOutError';
  declare readonly source: 'platform' | 'deadline';
  declare readonly timeoutMs: number | undefined;

  constructor(options: RunpodErrorOptions & { endpointId: string; job: JobSnapshot; source: 'platform' | 'deadline'; timeoutMs?: number }) {
    const why =
      options.source === 'platform'
        ? 'timed out on the platform (TIMED_OUT)'
        : `was still ${options.job.status} when the ${options.timeoutMs} ms deadline passed; it may still run`;
    // `/runsync` cut off at the deadline before it answered: a job may be queued, but its id never came back.
    const message =
      options.job.id === ''
        ? `the ${options.timeoutMs} ms deadline passed before /runsync on endpoint ${options.endpointId} answered: a job may run, id unknown`
        : `job ${options.job.id} on endpoint ${options.endpointId} ${why}`;
    super(message, options);
    this.source = options.source;
    this.timeoutMs = options.timeoutMs;
  }
}

/** The job ended CANCELLED. */
export class JobCancelledError extends JobError {
  override readonly name = 'JobCancelledError';

  constructor(options: RunpodErrorOptions & { endpointId: string; job: JobSnapshot }) {
    super(`job ${options.job.id} on endpoint ${options.endpointId} was cancelled`, options);
  }
}

/**
 * A 2xx answer to a stream request (REST v2 logs) that cannot be read as an event stream:
 * `reason: 'not-event-stream'` when it is not `text/event-stream` (an HTML proxy page, say), or
 * `'event-too-large'` when one event (or a line of it) runs past `limit` characters. Nothing more is
 * read from it, and it is not resumed: the same answer would come again.
 */
export class StreamError extends ServerError {
  override readonly name = 'StreamError';
  declare readonly reason: 'not-event-stream' | 'event-too-large';
  /** The limit an event went beyond, in characters (`maxEventSize`); undefined for `not-event-stream`. */
  declare readonly limit: number | undefined;

  constructor(message: string, options: ApiErrorOptions & { reason: 'not-event-stream' | 'event-too-large'; limit?: number | undefined }) {
    super(message, options);
    this.reason = options.reason;
    this.limit = options.limit;
  }
}
