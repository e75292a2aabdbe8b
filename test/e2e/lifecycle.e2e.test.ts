import { describe, expect, it } from 'vitest';
import { CapacityUnavailableError, PodTerminalStateError } from '../../src/index.js';
import { captureError } from '../helpers.js';
import { KEY_A, useEmulator } from './harness.js';

// Manual clock: start-up, billing hours and capacity changes happen when a test says so.
const ctx = useEmulator({ clock: 'manual', podStartupMs: 2_000 });
// These rules are checked through REST v2 and GraphQL, over one state.
const rest = () => ctx.client(KEY_A, { maxRetries: 2 }).rest;
const gpu = (id: string, count = 1) => ({ id, count });
const podTotals = async (podId: string, bucketSize: 'hour' | 'year') => {
  const { records } = await rest().billing.pods({ podId, bucketSize });
  return { records, gpu: records.reduce((sum, r) => sum + r.gpuAmount, 0), disk: records.reduce((sum, r) => sum + r.diskAmount, 0) };
};
const image = 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04';
const cuda128Image = 'runpod/pytorch:2.8.0-py3.11-cuda12.8.1-cudnn-devel-ubuntu22.04';

async function runningPod(extra: Record<string, unknown> = {}) {
  const rp = ctx.client();
  const pod = await rest().pods.create({ name: 'life', image, gpu: gpu('NVIDIA RTX A4000'), mounts: { persistent: { size: 10, path: '/workspace' } }, ...extra });
  await ctx.emulator.clock.advance(2_000);
  return { rp, pod };
}

describe('pod lifecycle rules', () => {
  it('the container is up only after start-up, and then its ports are mapped', async () => {
    const { rp, pod } = await runningPod({ ports: ['8888/http'] });
    expect((await rp.pods.get(pod.id))?.runtime?.ports?.[0]?.privatePort).toBe(8888);
    const fresh = await rp.pods.deploy({ imageName: image, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, ports: '8888/http' });
    expect(fresh.runtime).toBeNull();
    await ctx.emulator.clock.advance(1_999);
    expect((await rp.pods.get(fresh.id))?.runtime).toBeNull();
    await ctx.emulator.clock.advance(1);
    expect((await rp.pods.get(fresh.id))?.runtime).not.toBeNull();
    await rp.pods.terminate(fresh.id);
    await rest().pods.delete(pod.id);
  });

  it('stop releases the GPU and clears the container disk, keeps /workspace, and keeps billing the volume', async () => {
    const { rp, pod } = await runningPod();
    const host = ctx.emulator.inspect.pod(pod.id)!.hostId;
    const freeWhileRunning = ctx.emulator.inspect.freeGpus(host);
    ctx.emulator.inspect.writeFile(pod.id, '/root/scratch.txt', 'container');
    ctx.emulator.inspect.writeFile(pod.id, '/workspace/model.bin', 'weights');
    await rp.pods.stop(pod.id);
    expect(ctx.emulator.inspect.freeGpus(host)).toBe(freeWhileRunning + 1);
    expect(ctx.emulator.inspect.files(pod.id)).toEqual({ containerDisk: {}, volume: { '/workspace/model.bin': 'weights' } });

    const before = await podTotals(pod.id, 'year');
    await ctx.emulator.clock.advance(10 * 3_600_000);
    const after = await podTotals(pod.id, 'year');
    // 10 GB stopped at $0.20/GB/month for 10 hours; no GPU time.
    expect(after.disk - before.disk).toBeCloseTo((10 * 0.2 * 10) / (30 * 24), 4);
    expect(after.gpu).toBe(before.gpu);
    await rest().pods.delete(pod.id);
  });

  it('resume onto a host whose GPUs were taken is refused; a zero-GPU start happens only when asked', async () => {
    const rp = ctx.client();
    const pod = await rp.pods.deploy({ imageName: image, gpuTypeId: 'NVIDIA H100 80GB HBM3', gpuCount: 1 });
    await rp.pods.stop(pod.id);
    const squatter = await rp.pods.deploy({ imageName: image, gpuTypeId: 'NVIDIA H100 80GB HBM3', gpuCount: 1 });
    const refused = await captureError<CapacityUnavailableError>(rp.pods.resume({ podId: pod.id, gpuCount: 1 }));
    expect(refused).toBeInstanceOf(CapacityUnavailableError);
    expect(refused.message).toContain('There are not enough free GPUs on the host machine to start this pod.');
    expect(refused.status).toBe(200);
    expect(ctx.emulator.inspect.pod(pod.id)?.desiredStatus).toBe('EXITED');
    const recovered = await rp.pods.resume({ podId: pod.id, gpuCount: 0 });
    expect(recovered).toMatchObject({ desiredStatus: 'RUNNING', gpuCount: 0 });
    await rp.pods.terminate(squatter.id);
    await rp.pods.terminate(pod.id);
  });

  it('editing a running pod resets it: everything outside /workspace is erased', async () => {
    const { rp, pod } = await runningPod();
    ctx.emulator.inspect.writeFile(pod.id, '/root/cache', 'gone soon');
    ctx.emulator.inspect.writeFile(pod.id, '/workspace/keep', 'kept');
    await rest().pods.update(pod.id, { env: { NEW: '1' } });
    expect(ctx.emulator.inspect.files(pod.id)).toEqual({ containerDisk: {}, volume: { '/workspace/keep': 'kept' } });
    expect((await rp.pods.get(pod.id))?.runtime).toBeNull();
    await ctx.emulator.clock.advance(2_000);
    expect((await rest().pods.get(pod.id)).env).toEqual({ NEW: '1' });
    await rest().pods.delete(pod.id);
  });

  it('terminate deletes everything except what is on a network volume', async () => {
    const rp = ctx.client();
    const volume = await rest().networkVolumes.create({ name: 'keep', size: 10, dataCenter: 'EU-RO-1' });
    const onVolume = { network: [{ volumeId: volume.id, path: '/workspace' }] };
    const pod = await rest().pods.create({ name: 'keep', image, gpu: gpu('NVIDIA RTX A4000'), cloud: 'COMMUNITY', mounts: onVolume });
    await ctx.emulator.clock.advance(2_000);
    ctx.emulator.inspect.writeFile(pod.id, '/workspace/dataset.csv', 'rows');
    ctx.emulator.inspect.writeFile(pod.id, '/root/tmp', 'lost');
    await rest().pods.delete(pod.id);
    expect(ctx.emulator.inspect.pod(pod.id)).toBeUndefined();
    expect(ctx.emulator.inspect.networkVolumeFiles(volume.id)).toEqual({ '/dataset.csv': 'rows' });

    const next = await rest().pods.create({ name: 'next', image, gpu: gpu('NVIDIA RTX A4000'), cloud: 'COMMUNITY', mounts: onVolume });
    expect(ctx.emulator.inspect.files(next.id).volume).toEqual({ '/workspace/dataset.csv': 'rows' });
    await rest().pods.delete(next.id);
  });

  it('an image needing a newer CUDA fails on an older host, the way the platform fails', async () => {
    const rp = ctx.client();
    const pod = await rp.pods.deploy({ imageName: cuda128Image, gpuTypeId: 'NVIDIA GeForce RTX 4090', gpuCount: 1, ports: '8888/http' });
    expect(ctx.emulator.inspect.pod(pod.id)?.hostId).toBe('host-4090-cuda124');
    const waiting = rp.pods.waitUntilReady(pod.id, { pollIntervalMs: 10, timeoutMs: 5_000 });
    await ctx.emulator.clock.advance(2_000);
    const err = await captureError<PodTerminalStateError>(waiting);
    expect(err).toBeInstanceOf(PodTerminalStateError);
    expect(err.desiredStatus).toBe('EXITED');
    expect(err.reason).toMatch(/unsatisfied condition: cuda>=12\.8/);
    expect(ctx.emulator.inspect.pod(pod.id)?.lastStatusChange).toMatch(/unsatisfied condition: cuda>=12\.8/);
    await rp.pods.terminate(pod.id);
  });

  it('allowedCudaVersions steers placement to a compatible host', async () => {
    const rp = ctx.client();
    const pod = await rp.pods.deploy({ imageName: cuda128Image, gpuTypeId: 'NVIDIA GeForce RTX 4090', gpuCount: 1, ports: '8888/http', allowedCudaVersions: ['12.8'] });
    expect(ctx.emulator.inspect.pod(pod.id)?.hostId).toBe('host-4090-cuda128');
    await ctx.emulator.clock.advance(2_000);
    expect((await rp.pods.get(pod.id))?.desiredStatus).toBe('RUNNING');
    const none = await captureError(rp.pods.deploy({ imageName: cuda128Image, gpuTypeId: 'NVIDIA GeForce RTX 4090', gpuCount: 1, allowedCudaVersions: ['13.0'] }));
    expect(none).toBeInstanceOf(CapacityUnavailableError);
    await rp.pods.terminate(pod.id);
  });

  it('capacity runs out: stock falls and REST create answers no capacity', async () => {
    const rp = ctx.client();
    const [before] = await rp.gpuTypes.list({ id: 'NVIDIA A100 80GB PCIe', gpuCount: 1 });
    expect(before?.lowestPrice?.availableGpuCounts).toEqual([1, 2]);
    const pods = [
      await rest().pods.create({ name: 'a100', image, gpu: gpu('NVIDIA A100 80GB PCIe', 2), cloud: 'COMMUNITY' }),
    ];
    const [after] = await rp.gpuTypes.list({ id: 'NVIDIA A100 80GB PCIe', gpuCount: 1 });
    expect(after?.lowestPrice?.stockStatus).toBeNull();
    expect(await rp.gpuTypes.offers({ gpuCount: 1 })).not.toContainEqual(expect.objectContaining({ gpuTypeId: 'NVIDIA A100 80GB PCIe' }));
    const err = await captureError<CapacityUnavailableError>(rest().pods.create({ name: 'none left', image, gpu: gpu('NVIDIA A100 80GB PCIe'), cloud: 'COMMUNITY' }));
    expect(err).toBeInstanceOf(CapacityUnavailableError);
    for (const pod of pods) await rest().pods.delete(pod.id);
  });

  it('bills GPU time per resource on the emulator clock', async () => {
    const rp = ctx.client();
    const pod = await rest().pods.create({ name: 'l40s', image, gpu: gpu('NVIDIA L40S', 2) });
    await ctx.emulator.clock.advance(3 * 3_600_000);
    const billed = await podTotals(pod.id, 'hour');
    expect(billed.records.length).toBeGreaterThanOrEqual(3);
    expect(billed.gpu).toBeCloseTo(0.86 * 2 * 3, 3);

    const volume = await rest().networkVolumes.create({ name: 'billed', size: 100, dataCenter: 'EU-RO-1' });
    await ctx.emulator.clock.advance(30 * 24 * 3_600_000);
    const volumeBills = await rest().billing.networkVolumes({ bucketSize: 'month' });
    expect(volumeBills.records.reduce((sum, r) => sum + r.totalAmount, 0)).toBeGreaterThanOrEqual(7 - 0.01);
    await rest().pods.delete(pod.id);
    await rest().networkVolumes.delete(volume.id);
    expect(ctx.emulator.inspect.podCount(KEY_A)).toBe(0);
  });
});
