// The bench's documented-limits server (issue 38) enforces what its row claims: a sliding window
// per route group (not a refilling bucket), the concurrency cap, /status-sync counted with /status,
// and jobs that complete with their input. Small limits and a manual clock: no timed assertion.
import { afterEach, describe, expect, it } from 'vitest';
import { createRunpodClient } from '../../src/index.js';
import { startLimitsServer, type LimitsServer } from './limits-server.js';

const KEY = 'rpa_limits_key';
let server: LimitsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
const get = (url: string) => fetch(url, { headers: { authorization: `Bearer ${KEY}` } });

describe('the fan-out-limits row server', () => {
  it('allows `requests` arrivals in any window, not a bucket that refills evenly', async () => {
    let now = 0;
    server = await startLimitsServer({ apiKey: KEY, limits: { run: { requests: 4, intervalMs: 1000, concurrency: 100 }, status: { requests: 100, intervalMs: 1000 } }, latencyMs: 0, now: () => now });
    const run = () => post(`${server!.url}/v2/echo/run`, { input: { i: 1 } }).then((r) => r.status);
    expect([await run(), await run(), await run(), await run()]).toEqual([200, 200, 200, 200]);
    expect(await run()).toBe(429);
    // Half a window later a token bucket would have refilled two; a sliding window has none.
    now = 500;
    expect(await run()).toBe(429);
    // A window after the first arrivals, the window holds room for all four again.
    now = 1000;
    expect([await run(), await run(), await run(), await run(), await run()]).toEqual([200, 200, 200, 200, 429]);
    expect(server.refused).toEqual({ run: 3, status: 0 });
  });

  // Held 2 s: long enough that the three requests overlap on a loaded machine.
  it('refuses past the concurrency cap while answers are held, and counts /status-sync with /status', async () => {
    server = await startLimitsServer({ apiKey: KEY, limits: { run: { requests: 100, concurrency: 100 }, status: { requests: 3, intervalMs: 60_000, concurrency: 2 } }, latencyMs: 2_000 });
    const { id } = (await (await post(`${server.url}/v2/echo/run`, { input: { i: 7 } })).json()) as { id: string };
    const statuses = await Promise.all([get(`${server.url}/v2/echo/status-sync/${id}?wait=1000`), get(`${server.url}/v2/echo/status/${id}`), get(`${server.url}/v2/echo/status/${id}`)]);
    expect(statuses.map((r) => r.status).sort()).toEqual([200, 200, 429]);
    expect(await statuses.find((r) => r.status === 200)!.json()).toMatchObject({ id, status: 'COMPLETED', output: { i: 7 } });
    // Two arrivals counted (the refused one is not): one more fits the window of 3, then none.
    expect((await get(`${server.url}/v2/echo/status/${id}`)).status).toBe(200);
    expect((await get(`${server.url}/v2/echo/status/${id}`)).status).toBe(429);
  });

  it('refuses a wrong key and unknown routes', async () => {
    server = await startLimitsServer({ apiKey: KEY, limits: { run: { requests: 10 }, status: { requests: 10 } }, latencyMs: 0 });
    expect((await fetch(`${server.url}/v2/echo/run`, { method: 'POST', body: '{}' })).status).toBe(401);
    expect((await get(`${server.url}/v2/echo/health`)).status).toBe(404);
    expect((await get(`${server.url}/v2/echo/status/job-404`)).status).toBe(404);
  });

  it("is what the client's fan-out runs against: jobs complete, within the limits, with no 429", async () => {
    server = await startLimitsServer({ apiKey: KEY, limits: { run: { requests: 1000, intervalMs: 10_000, concurrency: 200 }, status: { requests: 2000, intervalMs: 10_000, concurrency: 400 } }, latencyMs: 5 });
    const endpoint = createRunpodClient(server.options).endpoint<{ i: number }, { i: number }>('echo');
    const done = await Promise.all(Array.from({ length: 300 }, async (_, i) => (await endpoint.run({ i })).wait()));
    expect(done.map((job) => job.output?.i)).toEqual(Array.from({ length: 300 }, (_, i) => i));
    expect(server.refused).toEqual({ run: 0, status: 0 });
  });
});
