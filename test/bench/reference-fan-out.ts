// The fan-out's baseline: the same plain `Promise.all` of `run` + `wait`, written by hand on bare
// fetch with the smallest pacing that keeps within the documented limits (a sliding window and a
// concurrency cap per route group, first come first served). Whatever memory this needs, any
// fetch-based client needs; what the client needs beyond it is its own.
import { referenceClient } from './reference-client.js';

interface Limit {
  requests: number;
  intervalMs?: number;
  concurrency?: number;
}

/** Runs `send` once the group allows one more request: no more than `requests` per window, `concurrency` at once. */
function limiter({ requests, intervalMs = 10_000, concurrency = Infinity }: Limit) {
  const windowMs = intervalMs * 1.02;
  const sentAt: number[] = [];
  const waiting: Array<() => void> = [];
  let inFlight = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const pump = () => {
    while (waiting.length > 0 && inFlight < concurrency) {
      const now = Date.now();
      while (sentAt.length > 0 && sentAt[0]! <= now - windowMs) sentAt.shift();
      if (sentAt.length >= requests) {
        timer ??= setTimeout(() => {
          timer = undefined;
          pump();
        }, sentAt[0]! + windowMs - now);
        return;
      }
      sentAt.push(now);
      inFlight++;
      waiting.shift()!();
    }
  };
  return async <T>(send: () => Promise<T>): Promise<T> => {
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      pump();
    });
    try {
      return await send();
    } finally {
      inFlight--;
      pump();
    }
  };
}

export function referenceFanOut(serverlessUrl: string, apiKey: string, limits: Record<string, Limit>, fetch: typeof globalThis.fetch) {
  const call = referenceClient({ authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, { fetch, timeoutMs: 60_000 });
  const runLimit = limiter(limits.run!);
  const statusLimit = limiter(limits.status!);
  const base = `${serverlessUrl}/echo`;
  return async (input: unknown) => {
    const { id } = (await runLimit(() => call(`${base}/run`, 'POST', JSON.stringify({ input }), false))) as { id: string };
    for (;;) {
      const state = (await statusLimit(() => call(`${base}/status-sync/${id}?wait=30000`))) as { status: string; output?: unknown };
      if (['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'].includes(state.status)) return state;
    }
  };
}
