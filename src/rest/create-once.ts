import type { RunpodError as RunpodErrorType } from '../errors.js';
import type { MarkerLookupOptions } from '../transport/create-marker.js';
import type { CallOptions } from '../transport/options.js';
import type { LazyKit } from './lazy.js';
import type { RestCall, RestRequester } from './rest-request.js';

/** Options of a create: the call's, and how to look for the resource after an ambiguous failure. */
export interface CreateOptions extends CallOptions {
  /**
   * After an ambiguous failure (5xx, cut connection, time-out) the resources are listed to find
   * the one carrying this create's marker (where the resource has an `env` to carry one): at most
   * `attempts` lists, `intervalMs` apart.
   * @default { attempts: 3, intervalMs: 2000 }
   */
  markerLookup?: MarkerLookupOptions | undefined;
}

/** Where a resource with an `env` is listed, to find it by its marker. */
export interface MarkerList {
  readonly path: string;
  readonly key: string;
  /** What the resource is called in the PossiblyCreatedError (`pod`); `it` when not given. */
  readonly noun?: string;
}

const DEFAULT_LOOKUP = { attempts: 3, intervalMs: 2000 };

/** A failure after which the resource may exist: the request may have been acted on, its answer lost. */
function isAmbiguous(err: unknown, { ServerError, TimeoutError, ConnectionError }: LazyKit['errors']): boolean {
  return err instanceof ServerError || err instanceof TimeoutError || (err instanceof ConnectionError && !err.notSent);
}

/**
 * A create, sent once (never resent once it may have arrived). After an ambiguous failure it
 * finds the resource by the marker it put in its `env` (when `list` says where), or says the
 * resource may exist with a PossiblyCreatedError.
 */
export async function createOnce<T>(rest: RestRequester, call: Omit<RestCall, 'idempotent'>, options: CreateOptions = {}, list: MarkerList | undefined, kit: LazyKit): Promise<T> {
  const { CREATE_MARKER_ENV, isRecord, errors: { PossiblyCreatedError, RunpodError } } = kit;
  const marker = list ? kit.newCreateMarker() : '';
  const { markerLookup, ...callOptions } = options;
  const body = list && isRecord(call.body) ? { ...call.body, env: { ...(call.body.env as object | undefined), [CREATE_MARKER_ENV]: marker } } : call.body;
  try {
    return await rest.object<T>({ ...call, body, idempotent: false }, callOptions);
  } catch (err) {
    if (!isAmbiguous(err, kit.errors)) throw err;
    let why = 'it cannot carry a marker to be found by';
    if (list) {
      try {
        const found = await findByMarker<T>(rest, list, marker, markerLookup, callOptions, kit);
        if (found) return found;
        why = `${list.noun ? `no ${list.noun}` : 'nothing'} with its marker was listed (yet)`;
      } catch (lookupError) {
        why = `looking it up failed: ${lookupError instanceof RunpodError ? lookupError.message : 'unknown error'}`;
      }
    }
    const where = list ? ` Its env ${CREATE_MARKER_ENV}=${marker}` : '';
    throw new PossiblyCreatedError(`${call.route} failed ambiguously (${(err as RunpodErrorType).message}); ${list?.noun ? `the ${list.noun} may exist` : 'it may have been created'}: ${why}.${where}`, {
      createMarker: marker,
      request: (err as RunpodErrorType).request,
      cause: err,
    });
  }
}

/**
 * The resource carrying `marker`, looked for on every page of its list (the list is newest first,
 * but a busy account may have made many since): at most `attempts` walks, `intervalMs` apart.
 * Undefined when every walk that could be read ended without it.
 */
async function findByMarker<T>(rest: RestRequester, list: MarkerList, marker: string, lookup: MarkerLookupOptions | undefined, options: CallOptions, { sleep, isRecord, CREATE_MARKER_ENV, pagedList, PAGE_LIMIT }: LazyKit): Promise<T | undefined> {
  const attempts = Math.max(1, lookup?.attempts ?? DEFAULT_LOOKUP.attempts);
  const intervalMs = lookup?.intervalMs ?? DEFAULT_LOOKUP.intervalMs;
  let lastError: unknown;
  let listed = false;
  for (let n = 0; n < attempts; n++) {
    if (n > 0) await sleep(intervalMs, options.signal);
    try {
      // Page by page, stopping at the page that holds it.
      for await (const item of pagedList<Record<string, unknown>>(rest, { path: list.path, route: `GET ${list.path}`, key: list.key, maxLimit: PAGE_LIMIT }, options)) {
        if (isRecord(item.env) && item.env[CREATE_MARKER_ENV] === marker) return item as T;
      }
      listed = true;
    } catch (err) {
      lastError = err;
    }
  }
  if (!listed) throw lastError;
  return undefined;
}
