// The floor the client is held to: a minimal careful client (per-attempt timeout, retries with
// backoff, typed errors, JSON checked), as anyone would write it by hand.

export class ReferenceError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
  }
}

const RETRYABLE = new Set([408, 429, 500, 502, 503, 504]);

export function referenceClient(headers: Record<string, string>, { timeoutMs = 30_000, maxRetries = 2, fetch: send = fetch as typeof fetch } = {}) {
  return async function call(url: string, method = 'GET', body?: string, idempotent = true): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      try {
        const res = await send(url, { method, headers, body, signal: controller.signal });
        const text = await res.text();
        if (res.ok) {
          try {
            return JSON.parse(text) as unknown;
          } catch {
            throw new ReferenceError('answer is not JSON', res.status);
          }
        }
        // A 429 was refused before any work, so even a create is sent again (as the client does).
        if (!((idempotent || res.status === 429) && RETRYABLE.has(res.status)) || attempt >= maxRetries) throw new ReferenceError(`HTTP ${res.status}`, res.status);
      } catch (err) {
        if (err instanceof ReferenceError) throw err;
        if (!idempotent || attempt >= maxRetries) throw new ReferenceError(`connection failed: ${(err as Error).message}`);
      } finally {
        clearTimeout(timer);
      }
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
    }
  };
}

/** A GraphQL call on top: the answer must carry an object in `data` and no `errors`. */
export async function referenceGraphQL(call: ReturnType<typeof referenceClient>, url: string, query: string, operationName: string, variables: unknown): Promise<unknown> {
  const answer = (await call(url, 'POST', JSON.stringify({ query, operationName, variables }))) as { data?: unknown; errors?: unknown } | null;
  if (answer === null || typeof answer !== 'object') throw new ReferenceError('not a GraphQL answer');
  if (Array.isArray(answer.errors) && answer.errors.length > 0) throw new ReferenceError('GraphQL errors');
  if (answer.data === null || typeof answer.data !== 'object') throw new ReferenceError('no data');
  return answer.data;
}
