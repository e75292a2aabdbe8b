// The fields the field map answers over REST v2, on every executor: (a) the emulator's GraphQL,
// (b) the in-process executor over a fetch seam (a client with graphqlTransport 'rest' on an
// in-process emulator), (c) a pass-through gateway over loopback with GraphQL retired. Each document
// is answered the same three ways, without errors, and its effect is checked over REST v2.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, IN_PROCESS_BASE, type Emulator } from '../../src/emulator/create-emulator.js';
import { createRunpodClient, type RunpodClient } from '../../src/index.js';
import { bearer, startRig, type GatewayRig } from '../gateway/harness.js';

const KEY = 'rpa_caller_own_key_0123456789';
const GPU = 'NVIDIA RTX A4000';
const IMAGE = 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04';

type Answer = { data?: any; errors?: Array<{ message: string; path?: unknown[]; extensions?: Record<string, unknown> }> };
/** One executor: a GraphQL POST, and REST v2 on the same state. */
interface Executor {
  readonly name: string;
  graphql(query: string, variables?: Record<string, unknown>): Promise<Answer>;
  rest(method: string, path: string, body?: unknown): Promise<any>;
}

function inProcessEmulator(name: string, build: (emulator: Emulator) => (query: string, variables?: Record<string, unknown>) => Promise<Answer>): Executor & { emulator: Emulator } {
  const emulator = createEmulator({ apiKeys: [KEY], podStartupMs: 0 });
  const rest = async (method: string, path: string, body?: unknown) => {
    const res = await emulator.fetch(new Request(`${IN_PROCESS_BASE}/v2${path}`, { method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }));
    return res.status === 204 ? null : res.json();
  };
  return { name, emulator, graphql: build(emulator), rest };
}

const emulatorGraphql = () =>
  inProcessEmulator('(a) emulator GraphQL', (emulator) => async (query, variables) => {
    const res = await emulator.fetch(new Request(`${IN_PROCESS_BASE}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) }));
    return (await res.json()) as Answer;
  });

const inProcess = () =>
  inProcessEmulator('(b) in process over REST v2', (emulator) => {
    emulator.retireGraphql();
    const rp: RunpodClient = createRunpodClient({ ...emulator.clientOptions(KEY), graphqlTransport: 'rest', rateLimits: false });
    return async (query, variables) => (await rp.graphql.execute(query, variables)) as Answer;
  });

async function gateway(): Promise<Executor & { rig: GatewayRig }> {
  const rig = await startRig({ passThroughKeys: true, tokens: undefined }, { graphqlRetired: true, podStartupMs: 0 });
  return {
    name: '(c) pass-through gateway, GraphQL retired',
    rig,
    graphql: async (query, variables) => (await (await rig.post({ query, variables }, bearer(KEY))).json()) as Answer,
    rest: async (method, path, body) => {
      const res = await fetch(`${rig.emulator.restV2Url}${path}`, { method, headers: { ...bearer(KEY), 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return res.status === 204 ? null : res.json();
    },
  };
}

const executors: Executor[] = [];
let rig: GatewayRig | undefined;
beforeAll(async () => {
  const gw = await gateway();
  rig = gw.rig;
  executors.push(emulatorGraphql(), inProcess(), gw);
});
afterAll(async () => {
  for (const e of executors) (e as { emulator?: Emulator }).emulator?.dispose();
  await rig?.close();
});

const each = async <T>(run: (e: Executor) => Promise<T>): Promise<Array<[string, T]>> => {
  const out: Array<[string, T]> = [];
  for (const e of executors) out.push([e.name, await run(e)]);
  return out;
};

describe('REST v2 fields on every executor', () => {
  it('DataCenter.gpuAvailability: stock per GPU type from /v2/catalog/datacenters, never null; filtered by GPU count and cloud from the GPU catalog', async () => {
    const answers = await each(async (e) => {
      const all = await e.graphql('{ dataCenters { id location gpuAvailability { id gpuTypeId displayName gpuTypeDisplayName available stockStatus gpuType { id memoryInGb } } } }');
      const eight = await e.graphql('query($i: GpuAvailabilityInput) { dataCenters { id gpuAvailability(input: $i) { gpuTypeId stockStatus available } } }', { i: { gpuCount: 8, secureCloud: true } });
      const rest = await e.rest('GET', '/catalog/datacenters?include=GPU_AVAILABILITY');
      const restEight = await e.rest('GET', '/catalog/gpus?include=AVAILABILITY&product=POD&count=8&cloud=SECURE');
      return { all, eight, rest, restEight };
    });
    const STOCK: Record<string, string> = { NONE: 'None', LOW: 'Low', MEDIUM: 'Medium', HIGH: 'High' };
    for (const [name, { all, eight, rest, restEight }] of answers) {
      // The emulator knows a location (production's GraphQL has one); REST v2 has none: that is the only error.
      expect((all.errors ?? []).map((x) => x.path?.slice(-1)[0]), name).toEqual(name.startsWith('(a)') ? [] : expect.arrayContaining(['location']));
      expect((all.errors ?? []).every((x) => x.path?.slice(-1)[0] === 'location'), name).toBe(true);
      const ks2 = all.data.dataCenters.find((d: any) => d.id === 'US-KS-2');
      const restKs2 = rest.dataCenters.find((d: any) => d.id === 'US-KS-2');
      expect(ks2.gpuAvailability.length, name).toBeGreaterThan(0);
      expect(ks2.gpuAvailability, name).toEqual(
        restKs2.gpuAvailability.map((a: any) => ({
          id: a.id, gpuTypeId: a.id, displayName: a.name, gpuTypeDisplayName: a.name, available: a.availability !== 'NONE',
          stockStatus: STOCK[a.availability], gpuType: { id: a.id, memoryInGb: expect.any(Number) },
        })),
      );
      expect(all.data.dataCenters.some((d: any) => d.gpuAvailability.some((a: any) => a.gpuTypeId === GPU && a.available)), name).toBe(true);
      expect(eight.errors, name).toBeUndefined();
      // Each GPU type the catalog places there, with its stock for 8 GPUs on Secure Cloud (out of stock is listed as None, not left out).
      const eightKs2 = eight.data.dataCenters.find((d: any) => d.id === 'US-KS-2').gpuAvailability;
      const expected = restEight.gpus.flatMap((t: any) => t.dataCenters.filter((d: any) => d.id === 'US-KS-2').map((d: any) => ({ gpuTypeId: t.id, stockStatus: STOCK[d.availability], available: d.availability !== 'NONE' })));
      expect(eightKs2, name).toEqual(expected);
      expect(eightKs2.length, name).toBeGreaterThan(0);
    }
    // The same stock whichever executor answers.
    const stock = answers.map(([, a]) => a.all.data.dataCenters.map((d: any) => [d.id, d.gpuAvailability]));
    expect(stock[1]).toEqual(stock[0]);
    expect(stock[2]).toEqual(stock[0]);
  });

  it('DataCenter.gpuAvailability: a filter REST v2 cannot apply is a field error naming the input, nothing else fails', async () => {
    for (const [name, answer] of await each((e) => e.graphql('{ dataCenters { id gpuAvailability(input: { minDisk: 50 }) { gpuTypeId } } }'))) {
      expect(answer.errors?.length, name).toBeGreaterThan(0);
      expect(answer.errors![0]!.message, name).toContain('input.minDisk');
      expect(answer.data.dataCenters[0].id, name).toEqual(expect.any(String));
    }
  });

  it('podEditJob: PATCH /v2/pods/{id}, which recreates the container; the answer is the edited pod', async () => {
    const results = await each(async (e) => {
      const made = await e.graphql('mutation($i: PodFindAndDeployOnDemandInput) { podFindAndDeployOnDemand(input: $i) { id } }', {
        i: { name: 'edit-me', imageName: IMAGE, gpuTypeId: GPU, gpuCount: 1, cloudType: 'SECURE', containerDiskInGb: 20, volumeInGb: 20, volumeMountPath: '/workspace', ports: '22/tcp' },
      });
      expect(made.errors, e.name).toBeUndefined();
      const podId = made.data.podFindAndDeployOnDemand.id as string;
      // As RunPod's Pulumi provider sends it (genqlient: podId, imageName, env and containerDiskInGb always; the rest when set).
      const edited = await e.graphql(
        'mutation UpdatePod($input: PodEditJobInput!) { podEditJob(input: $input) { id name imageName dockerArgs containerDiskInGb volumeInGb volumeMountPath env ports desiredStatus } }',
        { input: { podId, imageName: 'runpod/base:0.6.2-cuda12.4.1', env: [{ key: 'MODE', value: 'edited' }], containerDiskInGb: 40, volumeInGb: 30, ports: '8888/http,22/tcp', dockerArgs: 'sleep infinity' } },
      );
      return { podId, edited, rest: await e.rest('GET', `/pods/${podId}`) };
    });
    for (const [name, { podId, edited, rest }] of results) {
      expect(edited.errors, name).toBeUndefined();
      expect(edited.data.podEditJob, name).toEqual({
        id: podId, name: 'edit-me', imageName: 'runpod/base:0.6.2-cuda12.4.1', dockerArgs: 'sleep infinity', containerDiskInGb: 40, volumeInGb: 30, volumeMountPath: '/workspace',
        env: ['MODE=edited'], ports: '8888/http,22/tcp', desiredStatus: 'RUNNING',
      });
      // The effect, over REST v2: the volume kept its path (podEditJob resized it without naming it).
      expect(rest, name).toMatchObject({ image: 'runpod/base:0.6.2-cuda12.4.1', disk: 40, args: 'sleep infinity', env: { MODE: 'edited' }, mounts: { persistent: { size: 30, path: '/workspace' } }, ports: ['8888/http', '22/tcp'] });
    }
  });

  it('podEditJob: the legacy single port is refused before anything is sent, naming the input', async () => {
    for (const [name, answer] of await each((e) => e.graphql('mutation { podEditJob(input: { podId: "nope", imageName: "img", containerDiskInGb: 10, port: 8888 }) { id } }'))) {
      expect(answer.data?.podEditJob ?? null, name).toBeNull();
      expect(answer.errors?.[0]?.message, name).toContain('input.port');
    }
  });

  it('myself { clusters }: GET /v2/clusters, with the compute, the GPU name from the catalog and the pods of each', async () => {
    const results = await each(async (e) => {
      const made = await e.rest('POST', '/clusters', { name: 'train', type: 'TRAINING', compute: { gpuTypeId: GPU, gpuCountPerPod: 1, podCount: 2 }, image: IMAGE });
      const answer = await e.graphql('{ myself { clusters { id name userId gpuTypeId gpuDisplayName podCount gpuCountPerPod type templateId createdAt pods { id name } } } }');
      return { made, answer, pods: (await e.rest('GET', `/clusters/${made.id}/pods`)).pods };
    });
    for (const [name, { made, answer, pods }] of results) {
      const errors = (answer.errors ?? []).map((x) => x.path?.slice(-1)[0]);
      // The owner id is production's GraphQL's (the emulator knows it); REST v2 does not name it.
      expect(errors, name).toEqual(name.startsWith('(a)') ? [] : ['userId']);
      expect(answer.data.myself.clusters, name).toEqual([
        {
          id: made.id, name: 'train', userId: name.startsWith('(a)') ? expect.any(String) : null, gpuTypeId: GPU, gpuDisplayName: 'RTX A4000', podCount: 2, gpuCountPerPod: 1, type: 'TRAINING',
          templateId: null, createdAt: made.createdAt, pods: pods.map((p: any) => ({ id: p.id, name: p.name })),
        },
      ]);
      expect(pods, name).toHaveLength(2);
    }
  });

  it('secretCreate, secretValueUpdate, secretDescriptionUpdate, secretDelete over /v2/account/secrets; the value is never answered', async () => {
    const VALUE = 'sk-live-value-0123456789abcdef';
    const results = await each(async (e) => {
      const made = await e.graphql('mutation($input: SecretCreateInput!) { secretCreate(input: $input) { id name description createdAt } }', { input: { name: 'HF_TOKEN', value: VALUE, description: 'hub' } });
      const id = made.data?.secretCreate?.id as string;
      const value = await e.graphql('mutation($input: SecretValueUpdateInput!) { secretValueUpdate(input: $input) { id name } }', { input: { id, value: `${VALUE}-2` } });
      const described = await e.graphql('mutation($input: SecretDescriptionUpdateInput!) { secretDescriptionUpdate(input: $input) { id description } }', { input: { id, description: 'model hub' } });
      const listed = await e.rest('GET', '/account/secrets');
      const deleted = await e.graphql('mutation($id: ID!) { secretDelete(id: $id) }', { id });
      const after = await e.rest('GET', '/account/secrets');
      return { made, value, described, listed, deleted, after, text: JSON.stringify([made, value, described, deleted]) };
    });
    for (const [name, r] of results) {
      expect(r.made.errors, name).toBeUndefined();
      expect(r.made.data.secretCreate, name).toEqual({ id: expect.any(String), name: 'HF_TOKEN', description: 'hub', createdAt: expect.any(String) });
      expect({ data: r.value.data, errors: r.value.errors }, name).toEqual({ errors: undefined, data: { secretValueUpdate: { id: r.made.data.secretCreate.id, name: 'HF_TOKEN' } } });
      expect(r.described.data.secretDescriptionUpdate, name).toEqual({ id: r.made.data.secretCreate.id, description: 'model hub' });
      expect(r.listed.secrets, name).toEqual([expect.objectContaining({ name: 'HF_TOKEN', description: 'model hub' })]);
      expect({ data: r.deleted.data, errors: r.deleted.errors }, name).toEqual({ errors: undefined, data: { secretDelete: null } });
      expect(r.after.secrets, name).toEqual([]);
      expect(r.text, name).not.toContain(VALUE);
    }
  });

  it('Endpoint.flashBootType, minCudaVersion, networkVolumeIds; LowestPrice.gpuTypeCudaVersions: from REST v2 on every executor', async () => {
    const results = await each(async (e) => {
      const volume = await e.rest('POST', '/network-volumes', { name: 'v', size: 10, dataCenter: 'US-KS-2' });
      const endpoint = await e.rest('POST', '/serverless', { name: 'ep', type: 'QUEUE', image: IMAGE, scaling: { type: 'QUEUE_DELAY', queueDelay: 4 }, flashboot: 'FLASHBOOT', networkVolumes: [volume.id], gpu: { pools: ['AMPERE_16'], minCudaVersion: '12.4' } });
      const read = await e.graphql('{ myself { endpoints { id flashBootType minCudaVersion networkVolumeIds { networkVolumeId dataCenterId } } } }');
      const cuda = await e.graphql('{ gpuTypes(input: { id: "NVIDIA RTX A4000" }) { id lowestPrice(input: { gpuCount: 1 }) { gpuTypeCudaVersions { cudaVersion availability } } } }');
      const catalog = await e.rest('GET', `/catalog/gpus/${encodeURIComponent(GPU)}?include=AVAILABILITY&product=POD`);
      return { volume, endpoint, read, cuda, catalog };
    });
    for (const [name, r] of results) {
      expect(r.read.errors, name).toBeUndefined();
      expect(r.read.data.myself.endpoints.find((x: any) => x.id === r.endpoint.id), name).toEqual({
        id: r.endpoint.id, flashBootType: 'FLASHBOOT', minCudaVersion: '12.4', networkVolumeIds: [{ networkVolumeId: r.volume.id, dataCenterId: 'US-KS-2' }],
      });
      expect(r.cuda.errors, name).toBeUndefined();
      const versions = r.cuda.data.gpuTypes[0].lowestPrice.gpuTypeCudaVersions;
      expect(versions.length, name).toBeGreaterThan(0);
      expect(versions, name).toEqual(r.catalog.cudaVersions.map((c: any) => ({ cudaVersion: c.version, availability: c.available ? 'AVAILABLE' : 'UNAVAILABLE' })));
    }
  });
});
