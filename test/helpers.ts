import { inspect } from 'node:util';
import { expect, vi } from 'vitest';
import { RunpodError } from '../src/errors.js';
import type { HttpRequest } from '../src/transport/http-core.js';

// The core loads what it runs after an answer (src/transport/after-answer.ts) with the first answer
// that needs it. Loading is real I/O, which a test's fake timers would outrun: load it once here.
await import('../src/transport/after-answer.js');

/** The key every test uses; no error, log or inspected object may ever contain it. */
export const TEST_API_KEY = 'rpa_TESTSECRET_0123456789abcdef';

/** Fails when `value` exposes the key through its message, stack, JSON, inspect or cause chain. */
export function assertNoSecret(value: unknown, secret = TEST_API_KEY): void {
  const views: string[] = [inspect(value, { depth: 10, showHidden: true, getters: true })];
  try {
    views.push(JSON.stringify(value) ?? '');
  } catch {
    // Circular values cannot be stringified; inspect covers them.
  }
  for (let e: unknown = value, depth = 0; e instanceof Error && depth < 6; depth++) {
    views.push(e.message, e.stack ?? '', String(e));
    e = e.cause;
  }
  for (const view of views) {
    expect(view).not.toContain(secret);
    expect(view).not.toContain(encodeURIComponent(secret));
  }
}

/**
 * Awaits a rejection and returns the error, after checking it is a RunpodError that does not leak
 * the key. Every error test goes through here, so redaction is checked on every error in the suite.
 */
export async function captureError<T extends RunpodError = RunpodError>(run: Promise<unknown> | (() => Promise<unknown>)): Promise<T> {
  try {
    await (typeof run === 'function' ? run() : run);
  } catch (err) {
    expect(err).toBeInstanceOf(RunpodError);
    assertNoSecret(err);
    return err as T;
  }
  throw new Error('expected the call to reject, but it resolved');
}

export interface RecordedCall {
  url: URL;
  method: string;
  headers: Headers;
  body: string | undefined;
  redirect: RequestRedirect | undefined;
}

/** A fetch double that records each call and answers with `respond`. */
export function recordingFetch(respond: (call: RecordedCall, index: number) => Response | Promise<Response>) {
  const calls: RecordedCall[] = [];
  const fetch = async (input: string | URL | Request, init: RequestInit = {}) => {
    const call: RecordedCall = {
      url: new URL(String(input)),
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? init.body : undefined,
      redirect: init.redirect,
    };
    calls.push(call);
    if (init.signal?.aborted) throw init.signal.reason;
    return respond(call, calls.length - 1);
  };
  return { fetch, calls };
}

/** A REST v2 GPU catalog (`GET /v2/catalog/gpus`), as `rest.pods.create` reads it once per client to check `gpu.id`. */
export const GPU_CATALOG = { gpus: [{ id: 'NVIDIA L4', name: 'L4' }, { id: 'NVIDIA GeForce RTX 4090', name: 'RTX 4090' }, { id: 'NVIDIA RTX A4000', name: 'RTX A4000' }] };

/**
 * `recordingFetch` for tests of one route that `rest.pods.create` precedes with its catalog read:
 * the catalog is answered here and counted apart (`catalogReads`), so `calls` holds the rest.
 */
export function recordingFetchWithCatalog(respond: (call: RecordedCall, index: number) => Response | Promise<Response>) {
  const recorded = recordingFetch(respond);
  let catalogReads = 0;
  const fetch = async (input: string | URL | Request, init: RequestInit = {}) => {
    if (new URL(String(input)).pathname.endsWith('/catalog/gpus')) {
      catalogReads++;
      return json(GPU_CATALOG);
    }
    return recorded.fetch(input, init);
  };
  return { fetch, calls: recorded.calls, catalogReads: () => catalogReads };
}

export function json(body: unknown, init: ResponseInit = {}): Response {
  return new Response(JSON.stringify(body), {
    ...init,
    headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) },
  });
}

/** Awaits `run` with every pending fake timer (retry and poll waits) played out; needs `vi.useFakeTimers()`. */
export async function settle<T>(run: Promise<T>): Promise<T> {
  let done = false;
  run.then(
    () => (done = true),
    () => (done = true),
  );
  // A first call may load a module lazily (real I/O, not a timer) before it sets its timers: play
  // the timers out again after a short real wait until the call settles (or 50 rounds pass).
  for (let round = 0; round < 50 && !done; round++) {
    await vi.runAllTimersAsync();
    if (!done) await new Promise((resolve) => realSetTimeout(resolve, 5));
  }
  return run;
}
/** Captured before any test fakes the timers. */
const realSetTimeout = globalThis.setTimeout;

/** A serverless job-status request for the HTTP core's own tests (idempotent, paced as `status`). */
export const statusRequest = (extra: Partial<HttpRequest> = {}): HttpRequest => ({
  method: 'GET',
  url: 'https://api.runpod.ai/v2/ep-1/status/job-1',
  auth: 'bearer',
  operation: 'status',
  idempotent: true,
  rateLimitKey: 'serverless:ep-1:status',
  ...extra,
});
