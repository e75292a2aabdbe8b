// What the `openai` SDK needs to call a queue endpoint's OpenAI-compatible routes through this
// client: its HTTP core (key, pacing, retries, error types), with the key kept out of sight.
import type { HttpCore, HttpRequest } from '../transport/http-core.js';
import { checkDuration, type FetchLike } from '../transport/options.js';
import type { OpenAIFetchContext } from './openai-fetch.js';

/** The `apiKey` handed to the SDK: not a key. The helper's `fetch` sends the real one itself. */
export const OPENAI_API_KEY_PLACEHOLDER = 'runpod-gql-key-added-by-fetch';

export interface OpenAIHelperOptions {
  /**
   * Limit for one attempt: a whole answer, or a stream's first bytes. @default the client's `timeoutMs`
   */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt, for what is safe to resend (a 429, or `GET /models`). @default the client's `maxRetries` */
  maxRetries?: number | undefined;
  /** Extra headers for every request. */
  headers?: Record<string, string> | undefined;
}

/**
 * Options for `new OpenAI(…)`. `fetch` adds the `Authorization` header itself, so `apiKey` is a
 * placeholder; `maxRetries: 0` leaves retries and pacing to this client, so they happen once.
 */
export interface OpenAICompatible {
  /** `{serverlessUrl}/{endpointId}/openai/v1`. */
  readonly baseURL: string;
  readonly apiKey: string;
  readonly maxRetries: 0;
  readonly fetch: FetchLike;
}

let loadingFetch: Promise<typeof import('./openai-fetch.js')> | undefined;

export function createOpenAIHelper(core: HttpCore, endpointId: string, options: OpenAIHelperOptions = {}): OpenAICompatible {
  const baseURL = `${core.options.serverlessUrl}/${encodeURIComponent(endpointId)}/openai/v1`;
  const describe = (): HttpRequest => ({ method: 'POST', url: baseURL, auth: 'bearer', operation: `openai (endpoint ${endpointId})`, idempotent: false });
  checkDuration('timeoutMs', options.timeoutMs);
  core.checkBeforeSending(options, 'bearer', describe);
  const base = new URL(baseURL);

  // The request's making loads with the first call (every call is async).
  const context: OpenAIFetchContext = { core, endpointId, options, baseURL, base };
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
    (await (loadingFetch ??= import('./openai-fetch.js'))).openaiFetch(context, input, init);

  return Object.freeze({ baseURL, apiKey: OPENAI_API_KEY_PLACEHOLDER, maxRetries: 0 as const, fetch });
}
