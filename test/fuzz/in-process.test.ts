// rp.graphql in process over REST v2: random documents valid against schema.graphql (random
// selections, aliases, arguments and variables) give a result or a typed error, never a TypeError;
// every field error's cause is a RunpodError or graphql-js's own error; no GraphQL request is sent.
import fc from 'fast-check';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createRunpodClient, RunpodError } from '../../src/index.js';
import { createEmulator } from '../../src/emulator/index.js';
import { registerSecretValue } from '../../src/transport/redact.js';
import { counted, FUZZ_TIMEOUT_MS, params } from './harness.js';

const KEY = 'rpa_fuzz_in_process';

const POD_LEAVES = ['id', 'name', 'imageName', 'env', 'machineId', 'desiredStatus', 'costPerHr', 'gpuCount', 'lastStatusChange', 'templateId', 'vcpuCount', 'createdAt', '__typename'];
const RUNTIME = '{ uptimeInSeconds ports { ip isIpPublic privatePort publicPort type } gpus { id gpuUtilPercent } container { cpuPercent } }';
const GPU_LEAVES = ['id', 'displayName', 'memoryInGb', 'secureCloud', 'communityCloud', 'manufacturer', 'securePrice', 'maxGpuCount'];
const PRICE_LEAVES = ['uninterruptablePrice', 'stockStatus', 'availableGpuCounts', 'gpuName', 'minVcpu'];

const alias = fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined });
const pick = (names: string[]) => fc.subarray(names, { minLength: 1 });
const podSelection = fc.record({ leaves: pick(POD_LEAVES), runtime: fc.boolean(), machine: fc.boolean() }).map(
  ({ leaves, runtime, machine }) => `{ ${leaves.join(' ')}${runtime ? ` runtime ${RUNTIME}` : ''}${machine ? ' machine { podHostId gpuTypeId }' : ''} }`,
);
const priceInput = fc.record(
  {
    gpuCount: fc.integer({ min: -2, max: 9 }),
    secureCloud: fc.boolean(),
    countryCode: fc.constantFrom('US', 'RO', 'xx', ''),
    minVcpuCount: fc.integer({ min: 0, max: 4 }),
    cudaVersion: fc.constantFrom('12.4', '11', 'abc'),
    allowedCudaVersions: fc.array(fc.constantFrom('12.4', '12.8', 'x'), { maxLength: 2 }),
    compliance: fc.array(fc.constantFrom('GDPR', 'ITAR'), { maxLength: 2 }),
  },
  { requiredKeys: ['gpuCount'] },
);
const gpuFilter = fc.option(fc.record({ id: fc.constantFrom('NVIDIA RTX A4000', 'nope'), ids: fc.array(fc.string({ maxLength: 8 }), { maxLength: 2 }), cluster: fc.boolean() }, { requiredKeys: [] }), { nil: null });

const rootField = fc.oneof(
  fc.tuple(alias, podSelection).map(([a, s]) => ({ text: `${a ? `${a}: ` : ''}myself { pods ${s} }`, vars: {} })),
  fc.tuple(alias, fc.constantFrom('id', 'email', 'clientBalance', 'currentSpendPerHr')).map(([a, f]) => ({ text: `${a ? `${a}: ` : ''}myself { ${f} }`, vars: {} })),
  fc.tuple(alias, podSelection, fc.string({ maxLength: 12 })).map(([a, s, id]) => ({ text: `${a ? `${a}: ` : ''}pod(input: { podId: $podId }) ${s}`, vars: { podId: id } })),
  fc.tuple(alias, pick(GPU_LEAVES), fc.option(pick(PRICE_LEAVES), { nil: undefined }), gpuFilter, priceInput).map(([a, leaves, price, filter, input]) => ({
    text: `${a ? `${a}: ` : ''}gpuTypes(input: $filter) { ${leaves.join(' ')}${price ? ` lowestPrice(input: $price) { ${price.join(' ')} }` : ''} }`,
    vars: { filter, ...(price && { price: input }) },
  })),
);

/** Aliases differ per field, so that fields of the same name with other arguments never conflict. */
const document = fc.array(rootField, { minLength: 1, maxLength: 3 }).map((fields) => {
  const vars: Record<string, unknown> = {};
  const defs = new Set<string>();
  const body = fields
    .map((f, i) => {
      Object.assign(vars, f.vars);
      if ('podId' in f.vars) defs.add('$podId: String!');
      if ('filter' in f.vars) defs.add('$filter: GpuTypeFilter');
      if ('price' in f.vars) defs.add('$price: GpuLowestPriceInput');
      return `f${i}: ${f.text.replace(/^\w+: /, '')}`;
    })
    .join('\n');
  return { text: `query Fuzz${defs.size ? `(${[...defs].join(', ')})` : ''} {\n${body}\n}`, vars };
});

describe('random documents valid against schema.graphql, run in process over REST v2', () => {
  it('resolve to a result whose errors are typed, or throw a RunpodError; never a TypeError, never a GraphQL request', async () => {
    const emulator = createEmulator({ apiKeys: [KEY], podStartupMs: 0 });
    const base = emulator.clientOptions(KEY);
    let graphqlRequests = 0;
    const rp = createRunpodClient({
      ...base,
      rateLimits: false,
      graphqlTransport: 'rest',
      fetch: (input, init) => {
        if (String(input instanceof Request ? input.url : input).includes('/graphql')) graphqlRequests++;
        return base.fetch!(input, init);
      },
    });
    await rp.pods.deploy({ imageName: 'img:1', gpuTypeId: 'NVIDIA RTX A4000', cloudType: 'SECURE', ports: '22/tcp' });
    let results = 0;
    await fc.assert(
      fc.asyncProperty(
        document,
        counted('graphql-in-process', async ({ text, vars }) => {
          // execute: GraphQL errors in `errors`, each caused by a typed error or by graphql-js itself.
          const result = await rp.graphql.execute(text, vars);
          for (const error of result.errors ?? []) {
            expect(error).toBeInstanceOf(GraphQLError);
            const cause = error.originalError;
            expect(cause === undefined || cause instanceof RunpodError || (cause instanceof GraphQLError && cause.originalError === undefined), String(cause)).toBe(true);
          }
          if (result.data) results++;
          // request: the data, or a RunpodError.
          try {
            await rp.graphql.request(text, vars as Record<string, never>);
          } catch (err) {
            expect(err, String(err)).toBeInstanceOf(RunpodError);
          }
        }),
      ),
      params(60),
    );
    expect(results).toBeGreaterThan(0);
    expect(graphqlRequests).toBe(0);
  }, FUZZ_TIMEOUT_MS * 3);
});

// The field map's generic resolver on REST v2 pods of any shape: each field that reads a value of
// the wrong type is a typed field error (ServerError), never a TypeError; neither the key nor a
// secret value a malformed answer carries reaches the answer or its errors.
const SHAPE_KEY = 'rpa_fuzz_shape_key_0123456789';
const SECRET = 'hf_fuzz_secret_value_98765';
const VALID_POD = {
  id: 'p1', name: 'n', status: 'RUNNING', cost: 0.5, image: 'img', args: '', disk: 20, ports: ['22/tcp'], env: { A: 'b' }, registry: null, cloud: 'SECURE', dataCenterId: 'US-KS-2',
  gpu: { id: 'NVIDIA RTX A4000', count: 1, vcpuCount: 8, memory: 31 }, mounts: { persistent: { size: 20, path: '/workspace' } }, template: null, locked: false,
  ssh: { proxy: { host: 'ssh.runpod.io', port: 22, username: 'p1-0a1b2c3d', command: 'ssh' }, direct: null }, globalNetworking: { enabled: false },
  runtime: { uptime: 5, gpus: [{ util: 1, memoryUtil: 2 }], cpu: { util: 3 }, memory: { util: 4 }, ports: [{ private: 22, public: 40000, type: 'tcp', ip: '203.0.113.9' }] },
  createdAt: '2026-11-28T00:00:00Z', startedAt: '2026-11-28T00:00:01Z',
};
const POD_DOC = `{ pod(input: { podId: "p1" }) {
  id name imageName env desiredStatus costPerHr gpuCount memoryInGb vcpuCount containerDiskInGb volumeInGb volumeMountPath dockerArgs ports
  uptimeSeconds createdAt podType lastStatusChange machineId templateId locked networkVolumeId
  machine { podHostId gpuTypeId dataCenterId location secureCloud }
  runtime { uptimeInSeconds gpus { id gpuUtilPercent memoryUtilPercent } container { cpuPercent memoryPercent } ports { ip isIpPublic privatePort publicPort type } }
} }`;
/** A wrong value for any field: never a bare string, so no mapped string field may pass it on. */
const wrongValue = fc.oneof(
  fc.constant({ leaked: SHAPE_KEY }),
  fc.constant([SHAPE_KEY, SECRET]),
  fc.constant({ HF_TOKEN: { value: SECRET } }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant([{ util: 'x' }, 7]),
);
const KEYS = Object.keys(VALID_POD);
const NESTED = ['gpu.memory', 'gpu.count', 'runtime.gpus', 'runtime.ports', 'runtime.cpu', 'mounts.persistent', 'mounts.network', 'ssh.proxy', 'env.A', 'runtime.uptime'];

describe('REST v2 pods of any shape, through the field map', () => {
  it('give typed field errors only, and never the key or a secret value', async () => {
    // A secret value the process knows (as rp.rest.secrets registers the values it creates).
    const holder = {};
    registerSecretValue(SECRET, holder);
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...KEYS, ...NESTED), wrongValue, { maxKeys: 5 }),
        counted('field-map-shapes', async (changes) => {
          const pod = structuredClone(VALID_POD) as Record<string, unknown>;
          for (const [at, value] of Object.entries(changes)) {
            const [head, tail] = at.split('.') as [string, string | undefined];
            if (tail === undefined) pod[head] = value;
            else if (pod[head] && typeof pod[head] === 'object') (pod[head] as Record<string, unknown>)[tail] = value;
          }
          const rp = createRunpodClient({
            apiKey: SHAPE_KEY,
            graphqlTransport: 'rest',
            rateLimits: false,
            maxRetries: 0,
            fetch: async () => new Response(JSON.stringify(pod), { status: 200, headers: { 'content-type': 'application/json' } }),
          });
          const result = await rp.graphql.execute(POD_DOC);
          for (const error of result.errors ?? []) {
            expect(error.originalError, error.message).toBeInstanceOf(RunpodError);
            expect(['ServerError', 'TransportUnsupportedError']).toContain(error.extensions?.code);
          }
          const text = JSON.stringify(result);
          expect(text).not.toContain(SHAPE_KEY);
          expect(text).not.toContain(SECRET);
          try {
            await rp.graphql.request(POD_DOC);
          } catch (err) {
            expect(err, String(err)).toBeInstanceOf(RunpodError);
            expect(String((err as Error).message)).not.toContain(SECRET);
          }
        }),
      ),
      params(80),
    );
  }, FUZZ_TIMEOUT_MS * 2);
});
