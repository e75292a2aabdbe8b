import { describe, expect, it } from 'vitest';
import { createRunpodClient, ValidationError } from '../../src/index.js';
import { createEmulator } from '../../src/emulator/index.js';
import { captureError } from '../helpers.js';

const KEY = 'rpa_env_names';
const image = 'img:1';

/** A client on an in-process emulator that counts every request it sends. */
function setup(podsTransport: 'graphql' | 'rest') {
  const emulator = createEmulator({ apiKeys: [KEY], podStartupMs: 0 });
  const base = emulator.clientOptions(KEY);
  let sent = 0;
  const rp = createRunpodClient({
    ...base,
    podsTransport,
    rateLimits: false,
    fetch: (input, init) => {
      sent++;
      return base.fetch!(input, init);
    },
  });
  return { emulator, rp, sent: () => sent };
}

const protoMap = () => JSON.parse('{"A":"1","__proto__":"x"}') as Record<string, string>;

describe('one rule for `__proto__` as an env name, on every path', () => {
  it('rp.pods.deploy over GraphQL, rp.pods.deploy over REST v2 and rp.rest.pods.create give the same ValidationError, and send nothing', async () => {
    const errors: ValidationError[] = [];
    for (const transport of ['graphql', 'rest'] as const) {
      const { emulator, rp, sent } = setup(transport);
      errors.push(await captureError<ValidationError>(rp.pods.deploy({ imageName: image, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, env: protoMap() })));
      errors.push(await captureError<ValidationError>(rp.pods.deployCpu({ instanceId: 'cpu3c-2-4', imageName: image, env: [{ key: '__proto__', value: 'x' }] })));
      errors.push(await captureError<ValidationError>(rp.rest.pods.create({ name: 'p', image, gpu: { id: 'NVIDIA RTX A4000' }, env: protoMap() })));
      expect(sent()).toBe(0);
      expect(emulator.inspect.podCount(KEY)).toBe(0);
    }
    for (const err of errors) {
      expect(err).toBeInstanceOf(ValidationError);
      expect(err.field).toMatch(/(^|\.)env\.__proto__$/);
    }
    expect(new Set(errors.map((e) => e.message.replace(/^\S+: /, ''))).size).toBe(1);
  });

  it('other names, `constructor` included, are kept as variables on both paths', async () => {
    for (const transport of ['graphql', 'rest'] as const) {
      const { rp } = setup(transport);
      const env = JSON.parse('{"constructor":"c","toString":"t","A":"1"}') as Record<string, string>;
      const pod = await rp.pods.deploy({ imageName: image, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, env });
      expect(pod.env).toEqual(expect.arrayContaining(['constructor=c', 'toString=t', 'A=1']));
    }
  });
});
