import { describe, expect, it } from 'vitest';
import { ConflictError, createRunpodClient, NotFoundError, type RunpodClient } from '../../src/index.js';
import { captureError } from '../helpers.js';
import { KEY_A, useEmulator } from '../e2e/harness.js';

// The issue-10 walk through rp.rest against the emulator over 127.0.0.1. The emulator's REST v2
// is built on another branch: until it is merged, the emulator answers 404 there and this test is
// reported as skipped (never silently passed).
const ctx = useEmulator({ clock: 'manual', podStartupMs: 2_000 });

async function servesV2(rp: RunpodClient): Promise<boolean> {
  return rp.rest.catalog.cpus().then(
    () => true,
    (err: unknown) => (err instanceof NotFoundError ? false : Promise.reject(err)),
  );
}

async function untilStatus(rp: RunpodClient, id: string, status: string) {
  for (let step = 0; step < 20; step++) {
    const pod = await rp.rest.pods.get(id);
    if (pod.status === status) return pod;
    await ctx.emulator.clock.advance(500);
  }
  throw new Error(`pod ${id} never became ${status}`);
}

describe('REST v2 end to end against the emulator', () => {
  it('pod create → RUNNING → stop → start → restart → terminate; template, volume, registry; catalog, logs, billing', async (test) => {
    const rp = createRunpodClient({ ...ctx.server.clientOptions(KEY_A), maxRetries: 2 });
    if (!(await servesV2(rp))) test.skip('the emulator does not serve REST v2 yet');

    const gpus = await rp.rest.catalog.gpus({ include: ['AVAILABILITY'], product: ['POD'] });
    expect(gpus.length).toBeGreaterThan(0);
    const gpu = gpus[0]!;
    expect(gpu.price.secure).toBeGreaterThan(0);

    const template = await rp.rest.templates.create({ name: 'e2e', image: 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04', ports: ['8888/http'] });
    expect(await rp.rest.templates.get(template.id)).toMatchObject({ name: 'e2e' });
    const volume = await rp.rest.networkVolumes.create({ name: 'e2e', size: 10, dataCenter: 'EU-RO-1' });
    expect((await rp.rest.networkVolumes.update(volume.id, { size: 20 })).size).toBe(20);
    const registry = await rp.rest.registries.create({ name: 'ghcr', username: 'me', password: 'pw' });
    expect((await rp.rest.registries.list()).map((r) => r.id)).toContain(registry.id);

    const created = await rp.rest.pods.create({ name: 'walk', templateId: template.id, gpu: { id: gpu.id, count: 1 } });
    expect(created.status).not.toBe('RUNNING');
    await untilStatus(rp, created.id, 'RUNNING');
    expect((await rp.rest.pods.list()).map((p) => p.id)).toContain(created.id);
    const conflict = await captureError<ConflictError>(rp.rest.pods.start(created.id));
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict.resourceStatus).toBe('RUNNING');

    await rp.rest.pods.stop(created.id);
    await untilStatus(rp, created.id, 'EXITED');
    await rp.rest.pods.start(created.id);
    await untilStatus(rp, created.id, 'RUNNING');
    await rp.rest.pods.restart(created.id);
    await untilStatus(rp, created.id, 'RUNNING');

    const lines: string[] = [];
    try {
      for await (const entry of rp.rest.pods.logs(created.id, { tail: 100, signal: AbortSignal.timeout(2_000) })) {
        lines.push(entry.line);
        if (lines.length >= 2) break;
      }
    } catch {
      // The stream stays open for new lines; the signal ends it.
    }
    expect(lines.length).toBeGreaterThan(0);

    await rp.rest.pods.terminate(created.id);
    const after = await rp.rest.pods.get(created.id).catch((err: unknown) => err);
    expect(after instanceof NotFoundError || (after as { status?: unknown }).status === 'TERMINATED').toBe(true);

    const bills = await rp.rest.billing.pods({ bucketSize: 'hour' });
    expect(Array.isArray(bills.records)).toBe(true);

    await rp.rest.registries.delete(registry.id);
    await rp.rest.networkVolumes.delete(volume.id);
    await rp.rest.templates.delete(template.id);
  });
});
