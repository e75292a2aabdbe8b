// The emulator's HTTP edge under hostile input: random Host headers (DNS rebinding) and paths whose
// percent-escapes may not decode. Each case is checked against a model; no answer is ever a 500.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmulator, EMULATOR_API_KEY, IN_PROCESS_BASE } from '../../src/emulator/create-emulator.js';
import { getNamedType, isLeafType, isNonNullType, type GraphQLObjectType } from 'graphql';
import { buildExecutableSchema } from '../../src/graphql/executable-schema.js';
import { counted, FUZZ_TIMEOUT_MS, params, spellingsOf } from './harness.js';

const emulator = createEmulator();
emulator.loadBalanced.define({ id: 'lb1', coldStartMs: 0, routes: { 'GET /items/:id': (_req, ctx) => ({ id: ctx.params.id }) } });
const named = createEmulator({ allowedHosts: ['emulator', 'My-Host.Internal'] });
afterAll(() => {
  emulator.dispose();
  named.dispose();
});
const auth = { authorization: `Bearer ${EMULATOR_API_KEY}` };

/** Model: is `hostname` (as a URL gives it, lower case) a loopback name or the in-process host? */
function loopback(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]' || hostname === 'emulator.invalid') return true;
  const octets = hostname.split('.');
  return octets.length === 4 && octets[0] === '127' && octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255);
}

function hostnameOf(host: string): string | undefined {
  if (/[@/\\?#\s]/.test(host)) return undefined;
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

const port = fc.option(fc.integer({ min: 0, max: 65535 }).map((p) => `:${p}`), { nil: '' });
const hostName = fc.oneof(
  fc.constantFrom('localhost', 'LocalHost', '127.0.0.1', '127.255.255.254', '[::1]', '[0:0:0:0:0:0:0:1]', 'emulator.invalid', '127.1', '0x7f.0.0.1', '2130706433'),
  fc.constantFrom('evil.example@localhost', 'localhost/x', 'localhost.', 'localhost.evil.example', '127.0.0.1.nip.io', 'evil-127.0.0.1', '0.0.0.0', '[::]', '[::ffff:127.0.0.1]', 'emulator.invalid.evil', 'emulator', 'my-host.internal'),
  fc.domain(),
  fc.ipV4(),
  fc.ipV6().map((ip) => `[${ip}]`),
  fc.string({ unit: fc.constantFrom(...'abcxyz0123456789.-_:[]@%'.split('')), maxLength: 24 }),
);

describe('fuzz: the emulator edge', () => {
  it('random Host headers: only loopback names (or allowedHosts) are answered, the rest get 403, never 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostName,
        port,
        fc.constantFrom('/v2/pods', '/graphql', '/queue/v2/echo/health', '/lb/lb1/items/1'),
        fc.boolean(),
        counted('emulator: Host header', async (host, portText, path, useNamed) => {
          const header = `${host}${portText}`;
          const target = useNamed ? named : emulator;
          const res = await target.fetch(new Request(`${IN_PROCESS_BASE}${path}`, { method: path === '/graphql' ? 'POST' : 'GET', headers: { ...auth, host: header, 'content-type': 'application/json' }, body: path === '/graphql' ? '{"query":"{ myself { id } }"}' : undefined }));
          const hostname = hostnameOf(header);
          const allowed = hostname !== undefined && (loopback(hostname) || (useNamed && (hostname === 'emulator' || hostname === 'my-host.internal')));
          expect(res.status).not.toBe(500);
          if (allowed) expect(res.status, header).not.toBe(403);
          else expect(res.status, header).toBe(403);
          await res.body?.cancel();
        }),
      ),
      params(150),
    );
  }, FUZZ_TIMEOUT_MS);

  it('random percent-escapes in paths: 400 exactly when they do not decode, never 500', async () => {
    const escape = fc.oneof(
      fc.integer({ min: 0, max: 255 }).map((b) => `%${b.toString(16).padStart(2, '0')}`),
      fc.constantFrom('%', '%F', '%G0', '%%', '%E0%A4', '%C0%AF', '%ED%A0%80', '%F4%90%80%80', '%EF%BB%BF', '%2F', '%00'),
      fc.string({ unit: fc.constantFrom(...'abz09-_.~'.split('')), minLength: 1, maxLength: 4 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(escape, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('')),
        fc.constantFrom('/v2/pods/{}', '/lb/lb1/items/{}', '/lb/{}/x', '/queue/v2/echo/status/{}', '/queue/v2/{}/health', '/v2/templates/{}', '/{}'),
        counted('emulator: undecodable paths', async (segment, template) => {
          const path = template.replace('{}', segment);
          const res = await emulator.fetch(new Request(`${IN_PROCESS_BASE}${path}`, { headers: auth }));
          let decodes = true;
          try {
            decodeURIComponent(new URL(`${IN_PROCESS_BASE}${path}`).pathname);
          } catch {
            decodes = false;
          }
          expect(res.status, path).not.toBe(500);
          const text = await res.text();
          if (!decodes) {
            expect(res.status, path).toBe(400);
            expect(text).toContain('is not valid percent-encoded UTF-8');
          } else expect(text).not.toContain('is not valid percent-encoded UTF-8');
        }),
      ),
      params(150),
    );
  }, FUZZ_TIMEOUT_MS);
});

// The emulator's GraphQL over its whole state: documents that select random subsets of the fields
// of Pod (and its machine and runtime), User and GpuType, with a running pod, a stopped one, a
// template, an endpoint, a network volume and registry credentials in the account. Each answer is
// of the right shape (data, with no errors: the emulator stands in for production's GraphQL), and
// never carries the emulator's API key in any spelling.
describe('fuzz: the emulator GraphQL selections', () => {
  const KEY = 'rpa_fuzz_graphql_key_0123456789abcdef';
  const gql = createEmulator({ apiKeys: [KEY], clock: 'manual' });
  afterAll(() => gql.dispose());
  const schema = buildExecutableSchema();
  const post = async (query: string) => {
    const res = await gql.fetch(new Request(`${IN_PROCESS_BASE}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ query }) }));
    return { status: res.status, text: await res.text() };
  };
  /** The fields of `type` a document can select bare: scalars and enums, with no required argument. */
  const leaves = (type: string): string[] =>
    Object.values((schema.getType(type) as GraphQLObjectType).getFields())
      .filter((f) => isLeafType(getNamedType(f.type)) && f.args.every((a) => !isNonNullType(a.type)))
      .map((f) => f.name);
  const subset = (type: string) => fc.subarray(leaves(type), { minLength: 1 }).map((fields) => fields.join(' '));
  let podIds: string[] = [];

  it('seeds an account with something of each resource', async () => {
    const image = 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04';
    const deploy = (name: string) => post(`mutation { podFindAndDeployOnDemand(input: { name: "${name}", imageName: "${image}", gpuTypeId: "NVIDIA RTX A4000", ports: "8888/http,22/tcp", env: [{ key: "A", value: "b" }] }) { id } }`);
    const ids = await Promise.all([deploy('up'), deploy('down')]).then((rs) => rs.map((r) => JSON.parse(r.text).data.podFindAndDeployOnDemand.id as string));
    podIds = ids;
    await post(`mutation { podStop(input: { podId: "${ids[1]}" }) { id } }`);
    await gql.clock.advance(10_000);
    const saved = JSON.parse((await post(`mutation { saveTemplate(input: { name: "t", imageName: "${image}", dockerArgs: "", containerDiskInGb: 10, volumeInGb: 0, env: [] }) { id } }`)).text);
    expect(saved.errors).toBeUndefined();
    const template = saved.data.saveTemplate.id as string;
    for (const m of [
      `mutation { saveEndpoint(input: { name: "e", templateId: "${template}", gpuIds: "AMPERE_16", scalerType: "QUEUE_DELAY", scalerValue: 4, workersMax: 1 }) { id } }`,
      'mutation { createNetworkVolume(input: { name: "v", size: 10, dataCenterId: "US-KS-2" }) { id } }',
      'mutation { saveRegistryAuth(input: { name: "r", username: "u", password: "registry-secret-0123456789" }) { id } }',
      'mutation { updateUserSettings(input: { pubKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOf7t0yXzk3a8sGQ3mP1n2o4r5s6t7u8v9w0x1y2z3A4 me@host" }) { id } }',
    ]) {
      const { text } = await post(m);
      expect(JSON.parse(text).errors, m).toBeUndefined();
    }
  });

  it('random field selections: data of the right shape, no errors, never the key', async () => {
    await fc.assert(
      fc.asyncProperty(
        subset('Pod'),
        subset('PodMachineInfo'),
        subset('PodRuntimePorts'),
        subset('User'),
        subset('GpuType'),
        subset('LowestPrice'),
        fc.constantFrom(0, 1),
        counted('emulator: GraphQL selections', async (pod, machine, ports, user, gpu, lowest, which) => {
          const podSelection = `${pod} machine { ${machine} } runtime { uptimeInSeconds ports { ${ports} } gpus { id gpuUtilPercent } }`;
          const query = `{
            myself { ${user} pods { ${podSelection} } networkVolumes { id name size dataCenterId } endpoints { id name templateId gpuIds } podTemplates { id name imageName } containerRegistryCreds { id name } }
            pod(input: { podId: "${podIds[which]}" }) { ${podSelection} }
            gpuTypes { ${gpu} lowestPrice(input: { gpuCount: 1 }) { ${lowest} } }
          }`;
          const { status, text } = await post(query);
          for (const spelling of spellingsOf(KEY)) expect(text).not.toContain(spelling);
          expect(status, text).toBe(200);
          const body = JSON.parse(text) as { data?: any; errors?: unknown };
          expect(body.errors, text).toBeUndefined();
          expect(body.data.myself.pods).toHaveLength(2);
          expect(body.data.pod).not.toBeNull();
          expect(body.data.gpuTypes.length).toBeGreaterThan(0);
        }),
      ),
      params(60),
    );
  }, FUZZ_TIMEOUT_MS);
});
