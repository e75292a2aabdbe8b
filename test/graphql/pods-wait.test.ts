import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadGraphQLRuntime } from '../../src/graphql/graphql-client.js';
import {
  AbortError,
  createRunpodClient,
  NotFoundError,
  parsePodEnv,
  PodTerminalStateError,
  TimeoutError,
  toEnvironmentInput,
  type Pod,
  type WaitForPodProgress,
} from '../../src/index.js';
import { podFixture } from '../fixtures.js';
import { captureError, json, recordingFetch, TEST_API_KEY } from '../helpers.js';

const starting = podFixture({ desiredStatus: 'RUNNING', runtime: null });
const noPorts = podFixture({ runtime: { uptimeInSeconds: 1, gpus: [], container: null, ports: [] } });

function podSequence(pods: Array<Pod | null>) {
  return recordingFetch((_c, i) => json({ data: { pod: pods[Math.min(i, pods.length - 1)] } }));
}

// The GraphQL runtime loads on the first call, by real I/O that fake timers cannot advance.
beforeAll(() => loadGraphQLRuntime());

describe('pods.waitUntilReady', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('polls with growing intervals until RUNNING with ports mapped, reporting progress', async () => {
    const { fetch, calls } = podSequence([podFixture({ desiredStatus: 'CREATED', runtime: null }), starting, noPorts, podFixture()]);
    const progress: WaitForPodProgress[] = [];
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const pending = rp.pods.waitUntilReady('pod-abc123', { onProgress: (p) => progress.push(p) });
    await vi.runAllTimersAsync();
    const pod = await pending;
    expect(pod.runtime?.ports?.[0]?.publicPort).toBe(60001);
    expect(calls).toHaveLength(4);
    // 2 s, growing 1.5× toward 15 s: GraphQL is rate-limited, so waiting polls gently.
    expect(progress.map((p) => [p.attempt, p.pod.desiredStatus, p.nextPollMs])).toEqual([
      [1, 'CREATED', 2000],
      [2, 'RUNNING', 3000],
      [3, 'RUNNING', 4500],
    ]);
  });

  it('with requirePorts: false, a running container without ports is ready', async () => {
    const { fetch, calls } = podSequence([starting, noPorts]);
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const pending = rp.pods.waitUntilReady('pod-abc123', { requirePorts: false });
    await vi.runAllTimersAsync();
    expect((await pending).runtime?.ports).toEqual([]);
    expect(calls).toHaveLength(2);
  });

  it('an EXITED pod says why, from lastStatusChange', async () => {
    const reason = 'OCI runtime create failed: nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8';
    const { fetch } = podSequence([podFixture({ desiredStatus: 'EXITED', runtime: null, lastStatusChange: reason })]);
    const err = await captureError<PodTerminalStateError>(createRunpodClient({ apiKey: TEST_API_KEY, fetch }).pods.waitUntilReady('pod-abc123'));
    expect(err.reason).toBe(reason);
    expect(err.message).toContain('cuda>=12.8');
  });

  it.each(['TERMINATED', 'DEAD', 'EXITED'] as const)('fails fast on %s', async (status) => {
    const { fetch, calls } = podSequence([starting, podFixture({ desiredStatus: status, runtime: null })]);
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const pending = rp.pods.waitUntilReady('pod-abc123');
    pending.catch(() => undefined);
    await vi.runAllTimersAsync();
    const err = await captureError<PodTerminalStateError>(pending);
    expect(err).toBeInstanceOf(PodTerminalStateError);
    expect(err).toMatchObject({ podId: 'pod-abc123', desiredStatus: status });
    expect(calls).toHaveLength(2);
  });

  it('throws NotFoundError when the pod does not exist', async () => {
    const { fetch } = podSequence([null]);
    const err = await captureError(createRunpodClient({ apiKey: TEST_API_KEY, fetch }).pods.waitUntilReady('gone'));
    expect(err).toBeInstanceOf(NotFoundError);
  });

  it('gives up with TimeoutError at the deadline, polling no more often than the interval', async () => {
    const { fetch, calls } = podSequence([starting]);
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const started = Date.now();
    let endedAt = 0;
    const pending = rp.pods.waitUntilReady('pod-abc123', { timeoutMs: 10_000, pollIntervalMs: 1000, maxPollIntervalMs: 2000 }).finally(() => (endedAt = Date.now()));
    pending.catch(() => undefined);
    await vi.runAllTimersAsync();
    const err = await captureError<TimeoutError>(pending);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.timeoutMs).toBe(10_000);
    expect(err.message).toBe('pod pod-abc123 not ready after 10000 ms (last status RUNNING, container not up yet)');
    // Polls at 0, 1000, 2500, 4500, 6500, 8500; none at the deadline itself, with no time left.
    expect(calls).toHaveLength(6);
    expect(endedAt - started).toBe(10_000);
  });

  it('a short deadline is the limit of the poll itself: no poll is cut to 1 ms and retried', async () => {
    // The pod answer takes 5 s to come: the deadline (600 ms) ends the poll in flight.
    const calls: string[] = [];
    const fetch = (_input: string | URL | Request, init: RequestInit = {}) =>
      new Promise<Response>((resolve, reject) => {
        calls.push(String(init.body));
        const timer = setTimeout(() => resolve(json({ data: { pod: starting } })), 5_000);
        init.signal?.addEventListener('abort', () => (clearTimeout(timer), reject(init.signal?.reason)), { once: true });
      });
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, maxRetries: 5 });
    const started = Date.now();
    let endedAt = 0;
    const pending = rp.pods.waitUntilReady('pod-abc123', { timeoutMs: 600 }).finally(() => (endedAt = Date.now()));
    pending.catch(() => undefined);
    await vi.runAllTimersAsync();
    const err = await captureError<TimeoutError>(pending);
    expect(err.message).toBe('pod pod-abc123 not ready after 600 ms (last status unknown: no answer yet)');
    expect(endedAt - started).toBe(600);
    expect(calls).toHaveLength(1);
  });

  it('a deadline shorter than the first interval ends at the deadline, after one poll', async () => {
    const { fetch, calls } = podSequence([starting]);
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const started = Date.now();
    let endedAt = 0;
    const pending = rp.pods.waitUntilReady('pod-abc123', { timeoutMs: 600 }).finally(() => (endedAt = Date.now()));
    pending.catch(() => undefined);
    await vi.runAllTimersAsync();
    expect((await captureError<TimeoutError>(pending)).message).toMatch(/not ready after 600 ms \(last status RUNNING/);
    expect(endedAt - started).toBe(600);
    expect(calls).toHaveLength(1);
  });

  it('stops when the caller aborts during a wait', async () => {
    const { fetch, calls } = podSequence([starting]);
    const controller = new AbortController();
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch });
    const pending = rp.pods.waitUntilReady('pod-abc123', { signal: controller.signal });
    pending.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(2200);
    controller.abort();
    expect(await captureError(pending)).toBeInstanceOf(AbortError);
    expect(calls).toHaveLength(2);
  });
});

describe('env helpers', () => {
  it('parses Pod.env at the first = and skips nulls', () => {
    expect(parsePodEnv(['A=1', 'URL=postgres://u:p@h/db?x=y', 'FLAG', null, 'EMPTY='])).toEqual({
      A: '1',
      URL: 'postgres://u:p@h/db?x=y',
      FLAG: '',
      EMPTY: '',
    });
    expect(parsePodEnv(null)).toEqual({});
  });

  it('turns a map into the GraphQL input form and passes the input form through', () => {
    expect(toEnvironmentInput({ A: '1', B: 'two' })).toEqual([
      { key: 'A', value: '1' },
      { key: 'B', value: 'two' },
    ]);
    expect(toEnvironmentInput([{ key: 'A', value: '1' }, null])).toEqual([{ key: 'A', value: '1' }]);
  });
});
