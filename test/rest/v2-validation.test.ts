import { describe, expect, it } from 'vitest';
import { createRunpodClient, ValidationError, type RunpodClient } from '../../src/index.js';
import { captureError, json, recordingFetch, TEST_API_KEY } from '../helpers.js';

function setup() {
  const { fetch, calls } = recordingFetch(() => json({ id: 'pod-1' }));
  return { rp: createRunpodClient({ apiKey: TEST_API_KEY, fetch }), calls };
}

type Loose = never;
const cases: Array<[name: string, run: (rp: RunpodClient) => Promise<unknown>, field: string]> = [
  ['an unknown field', (rp) => rp.rest.pods.create({ name: 'p', image: 'i', gpu: { id: 'g' }, dataCenterId: 'EU' } as Loose), 'body.dataCenterId'],
  ['an unknown nested field', (rp) => rp.rest.pods.create({ name: 'p', image: 'i', gpu: { id: 'g', type: 'x' } } as Loose), 'body.gpu.type'],
  ['a missing name', (rp) => rp.rest.pods.create({ image: 'i', gpu: { id: 'g' } } as Loose), 'body.name'],
  ['no image and no templateId', (rp) => rp.rest.pods.create({ name: 'p', gpu: { id: 'g' } }), 'body.image'],
  ['both gpu and cpu', (rp) => rp.rest.pods.create({ name: 'p', image: 'i', gpu: { id: 'g' }, cpu: { id: 'c', vcpuCount: 2 } }), 'body.gpu'],
  ['neither gpu nor cpu', (rp) => rp.rest.pods.create({ name: 'p', image: 'i' }), 'body.gpu'],
  ['vcpuCount not a power of 2', (rp) => rp.rest.pods.create({ name: 'p', image: 'i', cpu: { id: 'c', vcpuCount: 6 } }), 'body.cpu.vcpuCount'],
  ['vcpuCount below 2', (rp) => rp.rest.pods.create({ name: 'p', image: 'i', cpu: { id: 'c', vcpuCount: 1 } }), 'body.cpu.vcpuCount'],
  ['an enum value the contract lacks', (rp) => rp.rest.pods.create({ name: 'p', image: 'i', gpu: { id: 'g' }, cloud: 'ALL' } as Loose), 'body.cloud'],
  ['a wrong type', (rp) => rp.rest.pods.update('p1', { env: { A: 1 } } as Loose), 'body.env.A'],
  ['a second network mount', (rp) => rp.rest.pods.update('p1', { mounts: { network: [{ volumeId: 'a', path: '/a' }, { volumeId: 'b', path: '/b' }] } }), 'body.mounts.network'],
  ['size below 10', (rp) => rp.rest.networkVolumes.create({ name: 'v', size: 9, dataCenter: 'EU-RO-1' }), 'body.size'],
  ['size above 4096', (rp) => rp.rest.networkVolumes.update('v', { size: 4097 }), 'body.size'],
  ['an empty update', (rp) => rp.rest.networkVolumes.update('v', {}), 'body'],
  ['a template with a network mount', (rp) => rp.rest.templates.create({ name: 't', image: 'i', mounts: { network: [] } } as Loose), 'body.mounts.network'],
  ['an endpoint without scaling', (rp) => rp.rest.endpoints.create({ name: 'e', image: 'i', type: 'QUEUE' } as Loose), 'body.scaling'],
  ['an endpoint scaling of neither kind', (rp) => rp.rest.endpoints.create({ name: 'e', image: 'i', type: 'QUEUE', scaling: { type: 'QUEUE_DELAY', queueDelay: 0.1 } }), 'body.scaling.queueDelay'],
  ['an SSH key that is not one', (rp) => rp.rest.sshKeys.replace(['not a key']), 'body.keys[0]'],
  ['a registry without password', (rp) => rp.rest.registries.create({ name: 'r', username: 'u' } as Loose), 'body.password'],
  ['an unknown action', (rp) => rp.rest.pods.action('p1', 'reset' as Loose), 'action'],
  ['an empty id', (rp) => rp.rest.pods.get(''), 'id'],
  ['the id .', (rp) => rp.rest.templates.delete('.'), 'id'],
  ['the id ..', (rp) => rp.rest.pods.terminate('..'), 'id'],
  ['a catalog id ..', (rp) => rp.rest.catalog.gpu('..'), 'id'],
];

describe('REST v2 validation before sending: ValidationError naming the field, nothing sent', () => {
  it.each(cases)('%s', async (_name, run, field) => {
    const { rp, calls } = setup();
    const err = await captureError<ValidationError>(run(rp));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.field).toBe(field);
    expect(err.status).toBeUndefined();
    expect(calls).toHaveLength(0);
  });

  it('log streams check their ids before anything is sent', () => {
    const { rp, calls } = setup();
    expect(() => rp.rest.pods.logs('..')).toThrow(ValidationError);
    expect(() => rp.rest.endpoints.workerLogs('e1', '')).toThrow(/workerId/);
    expect(() => rp.rest.pods.logs('p1', { tail: 5001 })).toThrow(/^tail: /);
    expect(() => rp.rest.pods.logs('p1', { source: 'stderr' as never })).toThrow(/^source: /);
    expect(calls).toHaveLength(0);
  });

  it('accepts what the contract accepts: a pod from a template, on CPU, with every optional field', async () => {
    const { rp, calls } = setup();
    await rp.rest.pods.create({ name: 'p', templateId: 't', cpu: { id: 'cpu3c', vcpuCount: 8 }, cloud: 'COMMUNITY', startSsh: true, dataCenterIds: ['EU-RO-1'], registry: null });
    await rp.rest.endpoints.create({ name: 'lb', image: 'i', type: 'LOAD_BALANCER', scaling: { type: 'REQUEST_COUNT', requestCount: 4 }, cpu: [{ id: 'cpu3c', vcpuCount: 4 }] });
    expect(calls).toHaveLength(2);
  });
});

describe('REST v2 validation: one-of alternatives', () => {
  it('reports against the alternative the value names', async () => {
    const { rp } = setup();
    const err = await captureError<ValidationError>(rp.rest.endpoints.update('e', { scaling: { type: 'REQUEST_COUNT', requestCount: 0 } }));
    expect(err.field).toBe('body.scaling.requestCount');
  });
});
