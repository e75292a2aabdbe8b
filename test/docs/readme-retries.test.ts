// The README's table of rp.pods and rp.gpuTypes says which calls are "retried automatically".
// Each row is checked here against the in-process emulator, with the first answer of the row's
// operation replaced by a failure at the fetch seam.
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import { createRunpodClient, NotFoundError, PossiblyCreatedError, ServerError, type RunpodClient } from '../../src/index.js';
import { captureError } from '../helpers.js';

const KEY = 'rpa_readme_retries_key';
const image = 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04';
const gpu = { gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, imageName: image, cloudType: 'SECURE' as const };

type Fault = '503 before' | '503 after' | '429';

/**
 * A client on a fresh emulator whose `fault` hits the first request of `operation`: `503 before`
 * never reaches the emulator, `503 after` reaches it and loses the answer, `429` is a refusal.
 */
function setup(operation?: string, fault: Fault = '503 before') {
  const emulator = createEmulator({ apiKeys: [KEY], podStartupMs: 0 });
  const base = emulator.clientOptions(KEY);
  const sent: string[] = [];
  let struck = false;
  const rp = createRunpodClient({
    ...base,
    rateLimits: false,
    podsTransport: 'graphql',
    fetch: async (input, init) => {
      const name = /"operationName":"(\w+)"/.exec(typeof init?.body === 'string' ? init.body : '')?.[1] ?? 'other';
      sent.push(name);
      if (name === operation && !struck) {
        struck = true;
        if (fault === '429') return Response.json({ errors: [{ message: 'slow down' }] }, { status: 429, headers: { 'retry-after': '0' } });
        if (fault === '503 after') await base.fetch!(input, init);
        return Response.json({ errors: [{ message: 'upstream' }] }, { status: 503 });
      }
      return base.fetch!(input, init);
    },
  });
  const count = (name: string) => sent.filter((s) => s === name).length;
  return { rp, count, emulator };
}

async function stoppedPod(rp: RunpodClient): Promise<string> {
  const pod = await rp.pods.deploy(gpu);
  await rp.pods.stop(pod.id);
  return pod.id;
}

describe("the README's 'retried automatically' column", () => {
  it('deploy: never resent; after an ambiguous failure the pod is looked up by its marker', async () => {
    const { rp, count } = setup('DeployPod');
    const err = await captureError<PossiblyCreatedError>(rp.pods.deploy(gpu));
    expect(err).toBeInstanceOf(PossiblyCreatedError);
    expect(count('DeployPod')).toBe(1);
    expect(count('MyPods')).toBeGreaterThanOrEqual(1);
  });

  it('deploy: the lost answer of a deploy that did create is found by its marker, not resent', async () => {
    const { rp, count, emulator } = setup('DeployPod', '503 after');
    const pod = await rp.pods.deploy(gpu);
    expect(count('DeployPod')).toBe(1);
    expect(emulator.inspect.podCount(KEY)).toBe(1);
    expect(pod.id).toBeTruthy();
  });

  it('deployCpu: as deploy', async () => {
    const { rp, count } = setup('DeployCpuPod');
    expect(await captureError(rp.pods.deployCpu({ instanceId: 'cpu3c-2-4', imageName: 'ubuntu:24.04' }))).toBeInstanceOf(PossiblyCreatedError);
    expect(count('DeployCpuPod')).toBe(1);
  });

  it('resume: not resent after a 5xx', async () => {
    const { rp, count } = setup('ResumePod');
    const id = await stoppedPod(rp);
    expect(await captureError(rp.pods.resume({ podId: id }))).toBeInstanceOf(ServerError);
    expect(count('ResumePod')).toBe(1);
  });

  it('resume: resent after a 429 (refused before any work)', async () => {
    const { rp, count } = setup('ResumePod', '429');
    const id = await stoppedPod(rp);
    expect((await rp.pods.resume({ podId: id })).id).toBe(id);
    expect(count('ResumePod')).toBe(2);
  });

  it('stop: resent after a 5xx, and stopping twice is harmless', async () => {
    const { rp, count } = setup('StopPod');
    const pod = await rp.pods.deploy(gpu);
    await rp.pods.stop(pod.id);
    expect(count('StopPod')).toBe(2);
    await rp.pods.stop(pod.id);
    expect(count('StopPod')).toBe(3);
  });

  it('terminate: resent after a 5xx; a resend that finds the pod gone after a lost answer succeeds', async () => {
    const first = setup('TerminatePod');
    const a = await first.rp.pods.deploy(gpu);
    await first.rp.pods.terminate(a.id);
    expect(first.count('TerminatePod')).toBe(2);
    expect(first.emulator.inspect.podCount(KEY)).toBe(0);

    const lost = setup('TerminatePod', '503 after');
    const b = await lost.rp.pods.deploy(gpu);
    await expect(lost.rp.pods.terminate(b.id)).resolves.toBeUndefined();
    expect(lost.count('TerminatePod')).toBe(2);
  });

  it('terminate: a second terminate, of a pod already gone, is a NotFoundError (as the README says)', async () => {
    const { rp } = setup();
    const pod = await rp.pods.deploy(gpu);
    await rp.pods.terminate(pod.id);
    expect(await captureError(rp.pods.terminate(pod.id))).toBeInstanceOf(NotFoundError);
  });

  it.each([
    ['get', 'Pod', (rp: RunpodClient, id: string) => rp.pods.get(id)],
    ['list', 'MyPods', (rp: RunpodClient) => rp.pods.list()],
    ['findByMarker', 'MyPods', (rp: RunpodClient) => rp.pods.findByMarker('no-such-marker')],
    ['gpuTypes.list', 'GpuTypes', (rp: RunpodClient) => rp.gpuTypes.list()],
    ['gpuTypes.offers', 'GpuTypes', (rp: RunpodClient) => rp.gpuTypes.offers()],
  ])('%s: resent after a 5xx', async (_name, operation, call) => {
    const { rp, count } = setup(operation);
    const pod = operation === 'MyPods' ? undefined : await rp.pods.deploy(gpu).catch(() => undefined);
    await call(rp, pod?.id ?? 'pod-x');
    expect(count(operation)).toBeGreaterThanOrEqual(2);
  });
});
