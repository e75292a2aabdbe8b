import { describe, expect, it } from 'vitest';
import { createRunpodClient } from '../../src/index.js';
import { podFixture } from '../fixtures.js';
import { json, recordingFetch, TEST_API_KEY } from '../helpers.js';

// Times a user reads are whole milliseconds: the progress hooks the CLI prints from (and a library
// user logs) once gave `elapsedMs: 13.237369000000001`, straight off the monotonic clock, and steps
// of 562.5 ms. Real timers: the fractions come from performance.now().
const whole = (n: number) => Number.isInteger(n) && n >= 0;

describe('progress times are whole milliseconds', () => {
  it("pods.waitUntilReady's onProgress: elapsedMs and nextPollMs", async () => {
    const pods = [podFixture({ desiredStatus: 'CREATED', runtime: null }), podFixture({ desiredStatus: 'RUNNING', runtime: null }), podFixture({ desiredStatus: 'RUNNING', runtime: null }), podFixture()];
    const { fetch } = recordingFetch((_c, i) => json({ data: { pod: pods[Math.min(i, pods.length - 1)] } }));
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const seen: Array<{ elapsedMs: number; nextPollMs: number }> = [];
    // 3 ms growing 1.5×: 3, 4.5, 6.75 before rounding.
    await rp.pods.waitUntilReady('pod-abc123', { pollIntervalMs: 3, onProgress: ({ elapsedMs, nextPollMs }) => seen.push({ elapsedMs, nextPollMs }) });
    expect(seen).toHaveLength(3);
    for (const p of seen) expect(whole(p.elapsedMs) && whole(p.nextPollMs), JSON.stringify(p)).toBe(true);
  });

  it("a job's wait onProgress: elapsedMs and nextPollMs", async () => {
    let polls = 0;
    const { fetch } = recordingFetch((call) => {
      if (call.url.pathname.includes('/status-sync/')) return json({ error: 'not found' }, { status: 404 });
      return json({ id: 'job-1', status: ++polls >= 5 ? 'COMPLETED' : 'IN_PROGRESS', output: 'done' });
    });
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const seen: Array<{ elapsedMs: number; nextPollMs: number }> = [];
    await rp.endpoint('ep-1').job('job-1').wait({ onProgress: ({ elapsedMs, nextPollMs }) => seen.push({ elapsedMs, nextPollMs }) });
    expect(seen.length).toBeGreaterThanOrEqual(3);
    for (const p of seen) expect(whole(p.elapsedMs) && whole(p.nextPollMs), JSON.stringify(p)).toBe(true);
  });
});
