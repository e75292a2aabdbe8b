// 2xx answers of the wrong shape: a ServerError with the answer's status and scrubbed body,
// never a TypeError, and never a resolved `undefined`, string or list where an item is typed.
import { describe, expect, it } from 'vitest';
import { createRunpodRestV1Client, ServerError, type RunpodRestV1 } from '../../src/rest-v1/index.js';
import { captureError, json, recordingFetch, TEST_API_KEY } from '../helpers.js';

const text = (body: string, status = 200) => new Response(body, { status, headers: { 'content-type': 'application/json' } });

function client(answer: () => Response) {
  const { fetch, calls } = recordingFetch(answer);
  return { rp: createRunpodRestV1Client({ apiKey: TEST_API_KEY, fetch, maxRetries: 0 }), calls };
}

type Call = (rp: RunpodRestV1) => Promise<unknown>;

const itemCalls: Array<[string, Call]> = [
  ['POST /pods', (rp) => rp.pods.create({ imageName: 'img', gpuCount: 1 })],
  ['GET /pods/{podId}', (rp) => rp.pods.get('p1')],
  ['PATCH /pods/{podId}', (rp) => rp.pods.update('p1', { volumeInGb: 30 })],
  ['GET /templates/{templateId}', (rp) => rp.templates.get('t1')],
  ['POST /endpoints', (rp) => rp.endpoints.create({ templateId: 't1', name: 'ep' })],
  ['GET /containerregistryauth/{containerRegistryAuthId}', (rp) => rp.containerRegistryAuths.get('c1')],
];

const listCalls: Array<[string, Call]> = [
  ['GET /pods', (rp) => rp.pods.list()],
  ['GET /templates', (rp) => rp.templates.list()],
  ['GET /networkvolumes', (rp) => rp.networkVolumes.list()],
  ['GET /billing/pods', (rp) => rp.billing.pods()],
  ['GET /billing/networkvolumes', (rp) => rp.billing.networkVolumes()],
];

const notAnItem = ['', 'null', '"hello"', '42', '[]', '[{"id":"p1"}]', '{}', '{"id":null}', '{"id":5}'];
const notAList = ['', 'null', '"hello"', '{}', '{"items":[]}', '[null]', '["a"]', '[1,2]'];

describe('REST v1: a wrong-shaped answer is a ServerError with its status and body', () => {
  it.each(itemCalls)('%s: anything but an object with a string id', async (route, call) => {
    for (const body of notAnItem) {
      const status = route.startsWith('POST') ? 201 : 200;
      const err = await captureError<ServerError>(() => call(client(() => text(body, status)).rp));
      expect(err, body).toBeInstanceOf(ServerError);
      expect(err.status).toBe(status);
      expect(err.body).toBe(body);
      expect(err.request?.operation).toBe(route);
      expect(err.message).toMatch(/expected (an object with a string id|a pod: an object with a string id)/);
    }
  });

  it.each(listCalls)('%s: anything but a list of objects', async (route, call) => {
    for (const body of notAList) {
      const err = await captureError<ServerError>(() => call(client(() => text(body)).rp));
      expect(err, body).toBeInstanceOf(ServerError);
      expect(err.body).toBe(body);
      expect(err.request?.operation).toBe(route);
      expect(err.message).toContain('expected a JSON array');
    }
  });

  it.each([
    ['a price that is not a number', { id: 'p1', costPerHr: 'x' }],
    ['a price that is an object', { id: 'p1', adjustedCostPerHr: {} }],
    ['the machine a string', { id: 'p1', machine: 'y' }],
    ['a machine price that is not a number', { id: 'p1', machine: { costPerHr: 'cheap' } }],
  ])('a pod with %s is refused (its prices are returned as numbers)', async (_name, pod) => {
    const asItem = await captureError<ServerError>(() => client(() => json(pod)).rp.pods.get('p1'));
    const inList = await captureError<ServerError>(() => client(() => json([{ id: 'p0' }, pod])).rp.pods.list());
    for (const err of [asItem, inList]) {
      expect(err).toBeInstanceOf(ServerError);
      expect(err.message).toContain('its prices as numbers');
    }
  });

  it('a billing record whose amount is not a number is refused', async () => {
    const err = await captureError<ServerError>(() => client(() => json([{ amount: 'lots', time: 't' }])).rp.billing.pods());
    expect(err).toBeInstanceOf(ServerError);
    expect(err.message).toContain('amounts as numbers');
  });

  it('lists are of resources with ids: an item without one is refused', async () => {
    const err = await captureError<ServerError>(() => client(() => json([{ id: 't1' }, { name: 'no id' }])).rp.templates.list());
    expect(err).toBeInstanceOf(ServerError);
    expect(err.message).toContain('each item an object with a string id');
  });

  it('an echoed key in a wrong-shaped body is scrubbed', async () => {
    const err = await captureError<ServerError>(() => client(() => json(`token ${TEST_API_KEY}`)).rp.pods.get('p1'));
    expect(err).toBeInstanceOf(ServerError);
    expect(String(err.body)).toContain('[REDACTED]');
  });

  it('a body that is not JSON stays a ServerError saying so', async () => {
    const err = await captureError<ServerError>(() => client(() => text('<html>502</html>')).rp.pods.list());
    expect(err).toBeInstanceOf(ServerError);
  });

  it('well-formed answers still resolve, normalised', async () => {
    const pod = { id: 'p1', costPerHr: '0.74', machine: { costPerHr: '0.5' } };
    expect(await client(() => json(pod)).rp.pods.get('p1')).toMatchObject({ id: 'p1', costPerHr: 0.74, machine: { costPerHr: 0.5 } });
    expect(await client(() => json([pod])).rp.pods.list()).toMatchObject([{ costPerHr: 0.74 }]);
    expect(await client(() => json([])).rp.templates.list()).toEqual([]);
    expect(await client(() => json([{ amount: '1.5', time: 't' }])).rp.billing.pods()).toEqual([{ amount: 1.5, time: 't' }]);
  });
});
