// Payload limits on both sides of the line, for the client (refused before sending, with the size)
// and the emulator (413): /run 10 MiB, /runsync 20 MiB, load-balanced 30 MiB, each a whole request
// body in UTF-8 bytes (see "What MB means" in src/serverless/README.md).
import { describe, expect, it } from 'vitest';
import { createEmulator, EMULATOR_API_KEY, IN_PROCESS_BASE } from '../../src/emulator/index.js';
import { createRunpodClient, ValidationError } from '../../src/index.js';
import { captureError, json, recordingFetch, TEST_API_KEY } from '../helpers.js';

const MiB = 1024 * 1024;
const RUN = 10 * MiB;
const RUNSYNC = 20 * MiB;
const LB = 30 * MiB;

/** `{"input":"aaa…"}` of exactly `bytes` bytes. */
const jobBody = (bytes: number) => `{"input":"${'a'.repeat(bytes - 12)}"}`;
/** The `input` that makes a job body of exactly `bytes` bytes. */
const inputOf = (bytes: number) => 'a'.repeat(bytes - 12);
/** A JSON string value (`"aaa…"`) of exactly `bytes` bytes, as a load-balanced `json` option sends it. */
const lbValue = (bytes: number) => 'a'.repeat(bytes - 2);

describe('payload limits: the client refuses before sending, giving the size', () => {
  it('/run: 10 MiB is sent, one byte more is a ValidationError and nothing is sent', async () => {
    const { fetch, calls } = recordingFetch(() => json({ id: 'job-1', status: 'IN_QUEUE' }));
    const ep = createRunpodClient({ apiKey: TEST_API_KEY, fetch }).endpoint('ep1');
    await ep.run(inputOf(RUN));
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body!.length).toBe(RUN);
    const err = await captureError(ep.run(inputOf(RUN + 1)));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toContain(`${RUN + 1} bytes`);
    expect(calls).toHaveLength(1);
  });

  it('/runsync: 20 MiB is sent, one byte more is refused; multi-byte characters count as UTF-8 bytes', async () => {
    const { fetch, calls } = recordingFetch(() => json({ id: 'job-1', status: 'COMPLETED', output: 1 }));
    const ep = createRunpodClient({ apiKey: TEST_API_KEY, fetch }).endpoint('ep1');
    await ep.runSync(inputOf(RUNSYNC));
    expect(calls).toHaveLength(1);
    await expect(ep.runSync(inputOf(RUNSYNC + 1))).rejects.toThrow(ValidationError);
    // 'é' is 2 bytes: under the limit in UTF-16 units, over it in bytes.
    await expect(ep.runSync('é'.repeat(RUNSYNC / 2))).rejects.toThrow(/bytes/);
    expect(calls).toHaveLength(1);
  });

  it('load-balanced: 30 MiB is sent (json and raw fetch), one byte more is refused before sending', async () => {
    const { fetch, calls } = recordingFetch(() => json({ ok: true }));
    const lb = createRunpodClient({ apiKey: TEST_API_KEY, fetch }).loadBalanced('lb1');
    await lb.post('/x', { json: lbValue(LB) });
    await lb.fetch('/x', { method: 'POST', body: 'b'.repeat(LB) });
    expect(calls.map((c) => c.body!.length)).toEqual([LB, LB]);
    const err = await captureError(lb.post('/x', { json: lbValue(LB + 1) }));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toContain(`${LB + 1} bytes`);
    await expect(lb.fetch('/x', { method: 'PUT', body: 'b'.repeat(LB + 1) })).rejects.toThrow(ValidationError);
    expect(calls).toHaveLength(2);
  });
});

describe('payload limits: the emulator answers 413 past each limit', () => {
  const auth = { authorization: `Bearer ${EMULATOR_API_KEY}`, 'content-type': 'application/json' };

  it('/run at 10 MiB and /runsync at 20 MiB: the limit itself is accepted, one byte more is 413', async () => {
    const emulator = createEmulator();
    try {
      const post = (route: string, body: string) => emulator.fetch(new Request(`${IN_PROCESS_BASE}/queue/v2/echo/${route}`, { method: 'POST', headers: auth, body }));
      expect((await post('run', jobBody(RUN))).status).toBe(200);
      expect((await post('run', jobBody(RUN + 1))).status).toBe(413);
      expect((await post('runsync', jobBody(RUNSYNC))).status).toBe(200);
      const over = await post('runsync', jobBody(RUNSYNC + 1));
      expect(over.status).toBe(413);
      expect(await over.json()).toEqual({ error: `request body is larger than ${RUNSYNC} bytes`, status: 413 });
    } finally {
      emulator.dispose();
    }
  });

  it('load-balanced at 30 MiB: the limit itself reaches the route, one byte more is 413 and the route never runs', async () => {
    const emulator = createEmulator();
    let served = 0;
    emulator.loadBalanced.define({ id: 'lb1', coldStartMs: 0, routes: { 'POST /x': async (req) => ({ bytes: (await req.arrayBuffer()).byteLength, served: ++served }) } });
    try {
      const post = (body: string) => emulator.fetch(new Request(`${IN_PROCESS_BASE}/lb/lb1/x`, { method: 'POST', headers: auth, body }));
      const atLimit = await post('a'.repeat(LB));
      expect(atLimit.status).toBe(200);
      expect(await atLimit.json()).toEqual({ bytes: LB, served: 1 });
      const over = await post('a'.repeat(LB + 1));
      expect(over.status).toBe(413);
      expect(await over.json()).toEqual({ error: `request body is larger than ${LB} bytes`, status: 413 });
      expect(served).toBe(1);
    } finally {
      emulator.dispose();
    }
  });

  it('end to end: the client refuses a 31 MiB load-balanced POST before the emulator sees it', async () => {
    const emulator = createEmulator();
    emulator.loadBalanced.define({ id: 'lb1', coldStartMs: 0, routes: { 'POST /x': () => ({ ok: true }) } });
    const hits = emulator.faults.inject({ match: '* /lb/**', fault: { type: 'latency', ms: 0 }, times: 10 });
    try {
      const lb = createRunpodClient(emulator.clientOptions()).loadBalanced('lb1');
      await expect(lb.post('/x', { json: 'a'.repeat(31 * MiB) })).rejects.toThrow(ValidationError);
      expect(hits.hits()).toBe(0);
      expect(await lb.post('/x', { json: 'small' })).toEqual({ ok: true });
      expect(hits.hits()).toBe(1);
    } finally {
      emulator.dispose();
    }
  });
});
