// setTimeout fires at once for a delay above 2^31 - 1 ms (about 24.8 days): Node warns and uses
// 1 ms. A caller's long time limit must not turn into an immediate time-out.
import { describe, expect, it } from 'vitest';
import { createRunpodClient } from '../../src/client.js';
import { linkAbort, MAX_TIMER_MS, sleep, startTimer } from '../../src/transport/abort.js';
import { json, TEST_API_KEY } from '../helpers.js';

const realDelay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const THIRTY_FIVE_DAYS = 35 * 24 * 3_600_000;

describe('time limits longer than setTimeout allows', () => {
  it('linkAbort with a 35-day limit does not abort at once', async () => {
    const link = linkAbort(undefined, THIRTY_FIVE_DAYS);
    await realDelay(30);
    expect(link.signal.aborted).toBe(false);
    expect(link.timedOut()).toBe(false);
    link.dispose();
  });

  it('sleep of 35 days is still pending after 30 ms, and its abort still works', async () => {
    const controller = new AbortController();
    let settled = false;
    const slept = sleep(THIRTY_FIVE_DAYS, controller.signal).then(
      () => (settled = true),
      (err: unknown) => err,
    );
    await realDelay(30);
    expect(settled).toBe(false);
    controller.abort();
    expect(await slept).toMatchObject({ name: 'AbortError' });
  });

  it('startTimer re-arms in steps: a delay of MAX_TIMER_MS + 1 fires once, after both steps', async () => {
    const { vi } = await import('vitest');
    vi.useFakeTimers();
    try {
      let fired = 0;
      startTimer(() => fired++, MAX_TIMER_MS + 1);
      await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
      expect(fired).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(fired).toBe(1);
      await vi.advanceTimersByTimeAsync(MAX_TIMER_MS * 2);
      expect(fired).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a request with a 35-day per-attempt timeout is answered, not timed out', async () => {
    const rp = createRunpodClient({
      apiKey: TEST_API_KEY,
      timeoutMs: THIRTY_FIVE_DAYS,
      fetch: async () => {
        await realDelay(30);
        return json({ id: 'pod-1', desiredStatus: 'RUNNING' });
      },
    });
    await expect(rp.rest.pods.get('pod-1')).resolves.toMatchObject({ id: 'pod-1' });
  });
});
