import type { CreateOnceOptions } from '../transport/create-once.js';
import type { CallOptions } from '../transport/options.js';
import type { LazyKit } from './lazy-kit.js';
import type { RestCall, RestRequester } from './rest-request.js';

/** Options of a create: the call's, and how to look for the resource after an ambiguous failure. */
export type CreateOptions = CreateOnceOptions;

/** Where a resource with an `env` is listed, to find it by its marker. */
export interface MarkerList {
  readonly path: string;
  readonly key: string;
  /** What the resource is called in the PossiblyCreatedError (`pod`). */
  readonly noun?: string;
}

/**
 * A REST v2 create under the client's one create-once rule (`createOnce` in the transport): the
 * marker goes into the body's `env` when `list` says where such resources are listed. `before`
 * runs first, under the same deadline and signal (the gpu.id check's catalog read).
 */
export async function createRestOnce<T>(
  rest: RestRequester,
  call: Omit<RestCall, 'idempotent'>,
  options: CreateOptions = {},
  list: MarkerList | undefined,
  kit: LazyKit,
  before?: (options: CallOptions) => Promise<void>,
): Promise<T> {
  const { createOnce, isRecord, pagedList, CREATE_MARKER_ENV, PAGE_LIMIT } = kit;
  return createOnce<T>(
    {
      operation: call.route,
      noun: list?.noun,
      // Without a marker, the name that was sent is what to look for.
      lookFor: !list && isRecord(call.body) && typeof call.body.name === 'string' && call.body.name ? `one named ${JSON.stringify(call.body.name)} in ${call.route.replace(/^POST /, 'GET ')}` : undefined,
      async send(marker, sending, callOptions) {
        await before?.(callOptions);
        const body = list && isRecord(call.body) ? { ...call.body, env: { ...(call.body.env as object | undefined), [CREATE_MARKER_ENV]: marker } } : call.body;
        sending();
        return rest.object<T>({ ...call, body, idempotent: false }, callOptions);
      },
      // Every page of the list (newest first, but a busy account may have made many since),
      // stopping at the page that holds it.
      find: list
        ? async (marker, callOptions) => {
            const route = { path: list.path, route: `GET ${list.path}`, key: list.key, maxLimit: PAGE_LIMIT };
            for await (const item of pagedList<Record<string, unknown>>(rest, route, callOptions)) {
              if (isRecord(item.env) && item.env[CREATE_MARKER_ENV] === marker) return item as T;
            }
            return null;
          }
        : undefined,
    },
    options,
    rest.core.options.deadlineMs,
  );
}
