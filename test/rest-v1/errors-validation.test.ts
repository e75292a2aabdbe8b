import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AuthenticationError,
  CapacityUnavailableError,
  createRunpodRestV1Client,
  NotFoundError,
  ServerError,
  ValidationError,
  type RunpodRestV1,
} from '../../src/rest-v1/index.js';
import { captureError, json, recordingFetch, TEST_API_KEY } from '../helpers.js';

const restError = (status: number, error: string) => json({ error, status }, { status });

describe('REST error mapping', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  async function failWith(response: () => Response, run: (rp: RunpodRestV1) => Promise<unknown>) {
    const { fetch, calls } = recordingFetch(response);
    const rp = createRunpodRestV1Client({ apiKey: TEST_API_KEY, fetch, maxRetries: 2 });
    const pending = run(rp);
    pending.catch(() => undefined);
    await vi.runAllTimersAsync();
    return { err: await captureError(pending), calls };
  }

  it('401 → AuthenticationError, not retried', async () => {
    const { err, calls } = await failWith(() => restError(401, 'invalid api key'), (rp) => rp.pods.list());
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.message).toContain('invalid api key');
    expect(err.request).toEqual({ method: 'GET', url: 'https://rest.runpod.io/v1/pods', operation: 'GET /pods' });
    expect(calls).toHaveLength(1);
  });

  it('404 → NotFoundError with the body kept', async () => {
    const { err } = await failWith(() => restError(404, 'pod not found'), (rp) => rp.pods.get('nope'));
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).body).toEqual({ error: 'pod not found', status: 404 });
    expect(err.request?.operation).toBe('GET /pods/{podId}');
  });

  it('a 500 saying no instances are available → CapacityUnavailableError, and create is sent once', async () => {
    const { err, calls } = await failWith(
      () => restError(500, 'create pod: There are no instances currently available'),
      (rp) => rp.pods.create({ imageName: 'img', gpuTypeIds: ['NVIDIA L4'], gpuCount: 1 }),
    );
    expect(err).toBeInstanceOf(CapacityUnavailableError);
    expect((err as CapacityUnavailableError).status).toBe(500);
    expect(calls).toHaveLength(1);
  });

  it('any other 500 on create → ServerError, never resent (the pod may exist)', async () => {
    const { err, calls } = await failWith(() => restError(500, 'create pod: host error'), (rp) => rp.pods.create({ templateId: 't', gpuCount: 1 }));
    expect(err).toBeInstanceOf(ServerError);
    expect(calls).toHaveLength(1);
  });

  it.each([
    ['GET', (rp: RunpodRestV1) => rp.pods.get('p')],
    ['DELETE', (rp: RunpodRestV1) => rp.templates.delete('t')],
    ['stop', (rp: RunpodRestV1) => rp.pods.stop('p')],
    ['restart', (rp: RunpodRestV1) => rp.pods.restart('p')],
  ])('%s is retried as idempotent after a 502', async (_name, run) => {
    const { err, calls } = await failWith(() => restError(502, 'bad gateway'), run);
    expect(err).toBeInstanceOf(ServerError);
    expect(calls).toHaveLength(3);
  });

  it('pod update is not resent: an edit resets a running pod', async () => {
    const { calls } = await failWith(() => restError(503, 'busy'), (rp) => rp.pods.update('p', { imageName: 'img:2' }));
    expect(calls).toHaveLength(1);
  });

  it('GET succeeds after a retry', async () => {
    const { fetch, calls } = recordingFetch((_c, i) => (i === 0 ? restError(503, 'busy') : json({ id: 'p' })));
    const rp = createRunpodRestV1Client({ apiKey: TEST_API_KEY, fetch });
    const pending = rp.pods.get('p');
    await vi.runAllTimersAsync();
    expect(await pending).toEqual({ id: 'p' });
    expect(calls).toHaveLength(2);
  });
});

describe('REST validation before sending', () => {
  const { fetch, calls } = recordingFetch(() => json({}));
  const rp = createRunpodRestV1Client({ apiKey: TEST_API_KEY, fetch });

  it.each<[string, (rp: RunpodRestV1) => Promise<unknown>]>([
    ['body.size', (rp) => rp.networkVolumes.create({ name: 'v', size: 4001, dataCenterId: 'EU-RO-1' })],
    ['body.size', (rp) => rp.networkVolumes.create({ name: 'v', dataCenterId: 'EU-RO-1' } as never)],
    ['body.dataCenterId', (rp) => rp.networkVolumes.create({ name: 'v', size: 10 } as never)],
    ['body.name', (rp) => rp.networkVolumes.create({ name: '', size: 10, dataCenterId: 'EU-RO-1' })],
    ['body.size', (rp) => rp.networkVolumes.update('v', { size: -1 })],
    ['body.templateId', (rp) => rp.endpoints.create({} as never)],
    ['body.idleTimeout', (rp) => rp.endpoints.create({ templateId: 't', idleTimeout: 0 })],
    ['body.name', (rp) => rp.templates.create({ imageName: 'x' } as never)],
    ['body.imageName', (rp) => rp.templates.create({ name: 'x' } as never)],
    ['body.ports[1]', (rp) => rp.templates.create({ name: 'x', imageName: 'y', ports: ['8888/http', '22'] })],
    ['body.gpuCount', (rp) => rp.pods.create({ imageName: 'x', gpuCount: 0 })],
    ['body.cloudType', (rp) => rp.pods.create({ imageName: 'x', cloudType: 'ALL' })],
    ['body.imageName', (rp) => rp.pods.create({ gpuCount: 1 })],
    ['body.env', (rp) => rp.pods.update('p', { env: [{ key: 'A', value: '1' }] as never })],
    ['body.ports', (rp) => rp.pods.update('p', { ports: '8888/http' as never })],
    ['body.password', (rp) => rp.containerRegistryAuths.create({ name: 'n', username: 'u' } as never)],
    ['podId', (rp) => rp.pods.get('')],
    ['podId', (rp) => rp.pods.stop(' ')],
    ['templateId', (rp) => rp.templates.update('', {})],
    ['networkVolumeId', (rp) => rp.networkVolumes.delete('')],
  ])('rejects %s', async (field, run) => {
    const err = await captureError<ValidationError>(run(rp));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.field).toBe(field);
    expect(calls).toHaveLength(0);
  });
});
