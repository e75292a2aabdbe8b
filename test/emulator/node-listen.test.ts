import { describe, expect, it } from 'vitest';
import { createRunpodClient } from '../../src/index.js';
import { createEmulator, EMULATOR_API_KEY } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';

describe('listen() from runpod-gql/emulator/node', () => {
  it('serves the emulator on 127.0.0.1 with the URLs and key to use', async () => {
    const server = await listen(createEmulator(), { port: 0 });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(server.clientOptions()).toEqual({
        apiKey: EMULATOR_API_KEY,
        graphqlUrl: `${server.url}/graphql`,
        restUrl: `${server.url}/v2`,
        serverlessUrl: `${server.url}/queue/v2`,
        loadBalancedUrl: `${server.url}/lb/{endpointId}`,
      });
      const offers = await createRunpodClient(server.clientOptions()).gpuTypes.offers({ gpuCount: 1 });
      expect(offers.length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it('keeps idle connections 65 s, as production\'s front ends do, and says so (Node\'s 5 s had clients reuse sockets it had just closed)', async () => {
    const server = await listen(createEmulator(), { port: 0 });
    try {
      const res = await fetch(`${server.url}/healthz`);
      await res.body?.cancel();
      expect(res.headers.get('keep-alive')).toBe('timeout=65');
    } finally {
      await server.close();
    }
  });

  it('rejects on a busy port, and on an invalid one', async () => {
    const first = await listen(createEmulator());
    try {
      const port = Number(new URL(first.url).port);
      await expect(listen(createEmulator(), { port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      await expect(listen(createEmulator(), { port: 99_999 })).rejects.toThrow(/port/i);
    } finally {
      await first.close();
    }
  });

  it('close() is idempotent and disposes the emulator', async () => {
    const emulator = createEmulator();
    const server = await listen(emulator);
    const sleeping = emulator.clock.sleep(3_600_000);
    await server.close();
    await expect(server.close()).resolves.toBeUndefined();
    await expect(sleeping).rejects.toThrow('disposed');
    await expect(fetch(`${server.url}/graphql`)).rejects.toThrow();
  });
});

describe('the auto clock over HTTP', () => {
  it('a job wait and a pod wait finish with no advance() from the test', async () => {
    const emulator = createEmulator({ clock: 'auto', podStartupMs: 120_000 });
    const server = await listen(emulator);
    try {
      const rp = createRunpodClient(server.clientOptions());
      const start = emulator.clock.now();
      const job = await rp.endpoint('sleep').run({ ms: 300_000, output: 'late' });
      expect((await job.wait({ pollIntervalMs: 5 })).output).toBe('late');
      const pod = await rp.pods.deploy({ name: 'h', imageName: 'img', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, ports: '22/tcp' });
      expect((await rp.pods.waitUntilReady(pod.id, { pollIntervalMs: 5 })).desiredStatus).toBe('RUNNING');
      expect(emulator.clock.now() - start).toBeGreaterThanOrEqual(420_000);
    } finally {
      await server.close();
    }
  });
});
