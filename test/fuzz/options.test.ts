import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createRunpodClient } from '../../src/client.js';
import { ValidationError } from '../../src/errors.js';
import { parsePodEnv } from '../../src/graphql/pod-env.js';
import { URL_ENV_VARIABLES, urlProblem, type CallOptions } from '../../src/transport/options.js';
import { fuzzClient, METHODS, FUZZ_TIMEOUT_MS, params, reportFigures, settleWithin } from './harness.js';

/** Not a finite number above 0: each would remove a time limit or spin a poller. */
const badDuration = fc.oneof(
  fc.constantFrom(0, -1, -0.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, '1', '60000', true, {}, [] as unknown, 10n),
  fc.double({ max: 0, noNaN: true }),
);
const badRetries = fc.oneof(fc.constantFrom(-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '2', 2n), fc.integer({ max: -1 }));
const badKey = fc.oneof(
  fc.constantFrom('key\r\nx-evil: 1', 'key\n', 'ключ-12345678', 'key🙂12345678', 'k\u0000ey12345678', ' leading12345678', 'trailing12345678 ', 'tab\tkey12345678'),
  fc.tuple(fc.string({ minLength: 4, maxLength: 12 }), fc.integer({ min: 0x100, max: 0xffff })).map(([s, code]) => `${s}${String.fromCharCode(code)}x`),
);
/** URLs no client can send to: no scheme, unparseable, another scheme, credentials, not a string. */
const badUrl = fc.oneof(
  fc.constantFrom<unknown>('127.0.0.1:8787/graphql', 'localhost:8787/v2', 'api.runpod.io', '', 'http://[::1', 'https://h:99999', 'ftp://h/x', 'file:///etc', 'javascript:alert(1)', 'https://u:p@h/x', 8787, {}),
  // (WHATWG URL parsing reads `http:x` as http://x/ and trims leading controls and spaces: those are URLs.)
  fc.string({ maxLength: 20 }).filter((s) => !/^[\u0000-\u0020]*https?:/i.test(s)),
);
const URL_OPTIONS = ['graphqlUrl', 'restUrl', 'serverlessUrl', 'loadBalancedUrl'] as const;
const badHeaders = fc.constantFrom<unknown>({ 'x-a': 'v\r\nx-b: 1' }, { 'x-a': 'ключ' }, { 'x-a': '\u0000' }, { 'x-a': 5 }, 'x-a: v', ['x-a', 'v']);

const WAITS = new Set(['pods.waitUntilReady', 'podsOnRest.waitUntilReady', 'job.wait']);

let refused = 0;
let sentWithInvalid = 0;

afterAll(() => reportFigures('invalid options are refused before sending', { 'invalid option sets': refused + sentWithInvalid, refused, 'invalid options sent': sentWithInvalid }));

function record(sent: number): void {
  if (sent > 0) sentWithInvalid++;
  else refused++;
}

describe('invalid options are refused before sending', () => {
  it('client options: a ValidationError naming the field at creation', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          badDuration.map((v) => ['timeoutMs', { timeoutMs: v }] as const),
          badRetries.map((v) => ['maxRetries', { maxRetries: v }] as const),
          badKey.map((v) => ['apiKey', { apiKey: v }] as const),
          badHeaders.map((v) => ['headers', { headers: v }] as const),
          fc.tuple(fc.constantFrom(...URL_OPTIONS), badUrl).map(([field, v]) => [field, { [field]: field === 'loadBalancedUrl' && typeof v === 'string' ? `${v}/{endpointId}` : v }] as const),
          fc.constantFrom<unknown>({}, 'redis://127.0.0.1', 5, true, [], { bucket: 'x' }, () => undefined).map((v) => ['pacingStore', { pacingStore: v }] as const),
          fc.string({ maxLength: 80 }).filter((v) => !/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/.test(v)).map((v) => ['appInfo', { appInfo: { name: v } }] as const),
          fc.oneof(fc.string(), fc.constantFrom<unknown>('DEBUG', 'verbose', 0, true, {})).filter((v) => !['off', 'error', 'warn', 'info', 'debug'].includes(v as string)).map((v) => ['logLevel', { logLevel: v }] as const),
          fc.constantFrom<unknown>(console.log, 'pino', 5, {}, { info: () => undefined }).map((v) => ['logger', { logger: v }] as const),
          fc.constantFrom<unknown>('proxy', 5, true, [], () => undefined).map((v) => ['fetchOptions', { fetchOptions: v }] as const),
        ),
        ([field, options]) => {
          let sent = 0;
          let error: unknown;
          try {
            createRunpodClient({ apiKey: 'rpa_valid_key_123456', fetch: async () => (sent++, Response.json({})), ...(options as object) });
          } catch (err) {
            error = err;
          }
          record(sent);
          expect(error).toBeInstanceOf(ValidationError);
          expect((error as ValidationError).field.startsWith(field)).toBe(true);
          expect((error as ValidationError).message).not.toContain('ключ');
        },
      ),
      params(300),
    );
  }, FUZZ_TIMEOUT_MS);

  it('the environment: a bad URL variable or RUNPOD_API_KEY is a ValidationError naming the variable, never echoing the key', () => {
    const variables = Object.values(URL_ENV_VARIABLES);
    try {
      fc.assert(
        fc.property(
          fc.oneof(
            fc.tuple(fc.constantFrom(...variables), badUrl.filter((v): v is string => typeof v === 'string' && v.trim() !== '')),
            // What trimming cannot fix: a control, CR or LF inside, or a character beyond Latin-1
            // (not NUL: an environment cannot hold one, the value ends there).
            fc.tuple(fc.constant('RUNPOD_API_KEY'), badKey.map((k) => `rpa_${k.replaceAll('\u0000', '\u0001')}_key`).filter((k) => /[^\x20-\x7e\x80-\xff]/.test(k.trim()))),
          ),
          ([variable, value]) => {
            vi.unstubAllEnvs();
            vi.stubEnv(variable, variable === 'RUNPOD_LOAD_BALANCED_URL' ? `${value}/{endpointId}` : value);
            let sent = 0;
            let error: unknown;
            try {
              createRunpodClient({ fetch: async () => (sent++, Response.json({})) });
            } catch (err) {
              error = err;
            }
            record(sent);
            // A value the WHATWG parser still makes a URL of is not "bad": only what urlProblem refuses must be.
            if (variable !== 'RUNPOD_API_KEY' && !urlProblem(value.trim())) return;
            expect(error).toBeInstanceOf(ValidationError);
            expect((error as ValidationError).field).toBe(variable);
            if (variable === 'RUNPOD_API_KEY') expect(JSON.stringify(error)).not.toContain(value.trim());
          },
        ),
        params(200),
      );
    } finally {
      vi.unstubAllEnvs();
    }
  }, FUZZ_TIMEOUT_MS);

  it('per-call options: every method refuses them, with nothing sent', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...METHODS),
        fc.oneof(
          badDuration.map((v) => ['timeoutMs', { timeoutMs: v }] as const),
          badRetries.map((v) => ['maxRetries', { maxRetries: v }] as const),
          badHeaders.map((v) => ['headers', { headers: v }] as const),
        ),
        async (method, [field, bad]) => {
          // Waits take their own options (a deadline and poll intervals), covered below.
          if (WAITS.has(method.name) && field !== 'timeoutMs') return;
          // fetch-style HeadersInit turns numbers into text, as fetch itself does.
          if (method.name === 'loadBalanced.fetch' && field === 'headers' && Object.values(bad.headers as object).some((v) => typeof v === 'number')) return;
          const { client, sent } = fuzzClient(() => Response.json({}));
          const settled = await settleWithin(() => method.call(client, 'p1', bad as CallOptions));
          record(sent.length);
          expect(sent.length, method.name).toBe(0);
          expect(settled.kind === 'rejected' && settled.error instanceof ValidationError && settled.error.field.startsWith(field), method.name).toBe(true);
        },
      ),
      params(200),
    );
  }, FUZZ_TIMEOUT_MS);

  it('waits refuse a deadline or poll interval that is not a finite number above 0', async () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '100', 10n]) {
      const { client, sent } = fuzzClient(() => Response.json({ id: 'j', status: 'IN_QUEUE' }));
      for (const [field, run] of [
        ['timeoutMs', () => client.pods.waitUntilReady('p', { timeoutMs: bad as number })],
        ['pollIntervalMs', () => client.pods.waitUntilReady('p', { pollIntervalMs: bad as number })],
        ['timeoutMs', () => client.endpoint('ep').job('j').wait({ timeoutMs: bad as number })],
        ['pollIntervalMs', () => client.endpoint('ep').job('j').wait({ pollIntervalMs: bad as number })],
      ] as const) {
        const settled = await settleWithin(run);
        expect(settled.kind === 'rejected' && settled.error instanceof ValidationError && settled.error.field === field, `${field}=${String(bad)}`).toBe(true);
      }
      record(sent.length);
      expect(sent).toEqual([]);
    }
  });

  it('the serverless queue refuses bad input as its first calls, before its calls have loaded, as it does once they have', async () => {
    type Endpoint = ReturnType<ReturnType<typeof createRunpodClient>['endpoint']>;
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const badCall = fc.oneof(
      fc.constantFrom<unknown>(undefined, cyclic, { n: 1n }).map((input) => (ep: Endpoint) => ep.run(input)),
      fc.constantFrom<unknown>('ftp://h/x', 'not a url', 5, '').map((webhook) => (ep: Endpoint) => ep.run({}, { webhook: webhook as string })),
      fc.integer().map((ttl) => (ep: Endpoint) => ep.run({}, { policy: { ttl: ttl % 10_000 } })),
      badDuration.map((v) => (ep: Endpoint) => ep.run({}, { timeoutMs: v as number })),
      badDuration.map((v) => (ep: Endpoint) => ep.runSync({}, { waitMs: v as number })),
      badDuration.map((v) => (ep: Endpoint) => ep.job('j').wait({ holdMs: v as number })),
      fc.constantFrom('', ' ', '..', 'a\u0000b').map((id) => (ep: Endpoint) => ep.status(id)),
      fc.constantFrom('', '.', 'a\nb').map((id) => (ep: Endpoint) => ep.cancel(id)),
    );
    const outcome = (s: PromiseSettledResult<unknown>) => (s.status === 'rejected' ? `${(s.reason as Error).name} ${(s.reason as ValidationError).field}: ${(s.reason as Error).message}` : 'resolved');
    await fc.assert(
      fc.asyncProperty(fc.array(badCall, { minLength: 1, maxLength: 6 }), async (calls) => {
        // The client's modules afresh: the queue's calls are not loaded yet.
        vi.resetModules();
        const fresh = (await import('../../src/client.js')) as typeof import('../../src/client.js');
        const sent: string[] = [];
        const fetch = async (input: string | URL | Request) => {
          sent.push(String(input));
          return Response.json({ id: 'j', status: 'COMPLETED', output: 1 });
        };
        const first = fresh.createRunpodClient({ apiKey: 'fuzz-key-12345678', fetch }).endpoint('ep');
        const before = await Promise.allSettled(calls.map((call) => call(first)));
        const loaded = fresh.createRunpodClient({ apiKey: 'fuzz-key-12345678', fetch }).endpoint('ep');
        const after = await Promise.allSettled(calls.map((call) => call(loaded)));
        record(sent.length);
        expect(sent).toEqual([]);
        expect(before.map(outcome)).toEqual(after.map(outcome));
        for (const result of before) expect(outcome(result)).toMatch(/^ValidationError /);
      }),
      params(25),
    );
  }, FUZZ_TIMEOUT_MS);

  it('inputs that cannot be sent: env of the wrong kind, cyclic or BigInt values', async () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const { client, sent } = fuzzClient(() => Response.json({}));
    const cases: Array<[string, () => Promise<unknown>]> = [
      ['env', () => client.pods.deploy({ gpuTypeId: 'g', imageName: 'i', env: 'A=1' as never })],
      ['env.A', () => client.pods.deploy({ gpuTypeId: 'g', imageName: 'i', env: { A: 1 } as never })],
      ['env[0]', () => client.pods.deploy({ gpuTypeId: 'g', imageName: 'i', env: ['A=1'] as never })],
      ['variables', () => client.graphql.request('query Q($x: Int) { myself { id } }', { x: 10n } as never)],
      ['input', () => client.endpoint('ep').run(cyclic)],
      ['input', () => client.endpoint('ep').run({ n: 1n })],
      ['json', () => client.loadBalanced('lb').post('/x', { json: cyclic })],
      ['body.env.A', () => client.rest.templates.create({ name: 'n', image: 'i', env: { A: 1n } } as never)],
    ];
    for (const [field, run] of cases) {
      const settled = await settleWithin(run);
      expect(settled.kind === 'rejected' && settled.error instanceof ValidationError && settled.error.field === field, field).toBe(true);
    }
    record(sent.length);
    expect(sent).toEqual([]);
  });

  it('gpuTypes over REST v2: a filter is refused with nothing sent, or every query value sent is one the contract takes', async () => {
    const KEYS = ['id', 'ids', 'gpuCount', 'secureCloud', 'countryCode', 'allowedCudaVersions', 'cudaVersion', 'dataCenterId', 'compliance', 'globalNetwork', 'minMemoryInGb', 'includeAiApi', 'cluster', '__proto__', 'constructor'];
    const value = fc.oneof(
      fc.anything({ maxDepth: 2 }),
      fc.constantFrom('US', 'us', 'USA', '12.4', '12', '12.x', 'GDPR', 'SOC_9', 'EU-RO-1', ['12.4', null], ['12'], ['GDPR'], 1, 2, 0, -1, 1.5, 2 ** 53, Number.NaN, true, false, null),
    );
    const QUERY: Record<string, RegExp> = {
      include: /^AVAILABILITY$/,
      product: /^POD$/,
      count: /^[1-9]\d{0,14}$/,
      cloud: /^(SECURE|COMMUNITY)$/,
      countryCodes: /^[A-Z]{2}$/,
      cudaVersions: /^\d+\.\d+(,\d+\.\d+)*$/,
      minCudaVersion: /^\d+(\.\d+)?$/,
      compliance: /^[A-Z0-9_]+(,[A-Z0-9_]+)*$/,
      globalNetwork: /^true$/,
    };
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 4 }), fc.boolean(), async (input, offers) => {
        const { client, sent } = fuzzClient((url) => Response.json(url.pathname.endsWith('/datacenters') ? { dataCenters: [] } : { gpus: [] }));
        const settled = await settleWithin(() => (offers ? client.overRest.gpuTypes.offers(input as never) : client.overRest.gpuTypes.list(input as never)));
        expect(settled.kind, JSON.stringify(input)).not.toBe('hang');
        if (settled.kind === 'rejected') {
          // By name: an earlier test of this file resets the module registry, so the lazily loaded
          // REST path may hold a fresh copy of the errors module (one copy in any real program).
          expect((settled.error as Error).name, JSON.stringify(input)).toMatch(/^(ValidationError|TransportUnsupportedError)$/);
          expect((settled.error as { field?: unknown }).field ?? (settled.error as { fields?: unknown }).fields, JSON.stringify(input)).toBeDefined();
          record(sent.length);
          expect(sent, JSON.stringify(input)).toEqual([]);
          return;
        }
        for (const { url } of sent) {
          expect(url.pathname).toMatch(/^\/v2\/catalog\/(gpus|datacenters)$/);
          for (const [k, v] of url.searchParams) expect(v, `${k} of ${JSON.stringify(input)}`).toMatch(QUERY[k] ?? /^$/);
        }
      }),
      params(300),
    );
  }, FUZZ_TIMEOUT_MS);

  it('parsePodEnv keeps a __proto__ variable as a variable', () => {
    const env = parsePodEnv(['__proto__=x', 'constructor=y', 'A=1']);
    expect(Object.keys(env)).toEqual(['__proto__', 'constructor', 'A']);
    expect(env['__proto__']).toBe('x');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
