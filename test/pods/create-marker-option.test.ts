import { describe, expect, it } from 'vitest';
import { createRunpodClient, ValidationError } from '../../src/index.js';
import { createEmulator } from '../../src/emulator/index.js';
import { parsePodEnv } from '../../src/graphql/pod-env.js';
import { CREATE_MARKER_ENV } from '../../src/transport/create-marker.js';
import { captureError } from '../helpers.js';

// `createMarker`: a caller (the CLI) chooses the marker before the create leaves, so that a process
// stopped mid-create can print it, and the pod can be found by it later, on either API.
const KEY = 'rpa_marker_option';
const input = { name: 'm', imageName: 'img', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, cloudType: 'ALL' as const };

describe.each(['graphql', 'rest'] as const)('pods.deploy with createMarker (%s)', (podsTransport) => {
  it('the pod carries the given marker, and findByMarker finds it', async () => {
    const emulator = createEmulator({ apiKeys: [KEY], podStartupMs: 0 });
    const rp = createRunpodClient({ ...emulator.clientOptions(KEY), podsTransport, rateLimits: false });
    try {
      const marker = 'cli_0123456789abcdef';
      const pod = await rp.pods.deploy({ ...input, env: { [CREATE_MARKER_ENV]: 'not-this-one', A: '1' } }, { createMarker: marker });
      const found = await rp.pods.findByMarker(marker);
      expect(found?.id).toBe(pod.id);
      expect(parsePodEnv(found!.env)).toMatchObject({ [CREATE_MARKER_ENV]: marker, A: '1' });
    } finally {
      emulator.dispose();
    }
  });

  it.each([['short'], [''], ['has space in it'], ['x'.repeat(129)], [42]])('refuses %j before sending anything', async (bad) => {
    let sent = 0;
    const emulator = createEmulator({ apiKeys: [KEY] });
    const base = emulator.clientOptions(KEY);
    const rp = createRunpodClient({ ...base, podsTransport, fetch: (i, init) => (sent++, base.fetch!(i, init)) });
    try {
      const err = await captureError(rp.pods.deploy(input, { createMarker: bad as string }));
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).field).toBe('createMarker');
      expect(sent).toBe(0);
    } finally {
      emulator.dispose();
    }
  });
});
