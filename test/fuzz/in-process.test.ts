// rp.graphql in process over REST v2: random documents valid against schema.graphql (random
// selections, aliases, arguments and variables) give a result or a typed error, never a TypeError;
// every field error's cause is a RunpodError or graphql-js's own error; no GraphQL request is sent.
import fc from 'fast-check';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createRunpodClient, RunpodError } from '../../src/index.js';
import { createEmulator } from '../../src/emulator/index.js';
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
