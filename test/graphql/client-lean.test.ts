import { readFileSync } from 'node:fs';
import { parse } from 'graphql';
import { describe, expect, it, vi } from 'vitest';
import { createGraphQLClient } from '../../src/graphql/graphql-client.js';
import { createHttpCoreFromOptions, type HttpCore, type HttpRequest } from '../../src/transport/http-core.js';
import { createRunpodClient, GraphQLResponseError, PodDocument, ServerError, ValidationError } from '../../src/index.js';
import { podFixture } from '../fixtures.js';
import { captureError, json, recordingFetch, TEST_API_KEY } from '../helpers.js';

const constructed = vi.hoisted(() => ({ clients: 0 }));
vi.mock('graphql-request', async (importOriginal) => {
  const original = await importOriginal<typeof import('graphql-request')>();
  class CountingClient extends original.GraphQLClient {
    constructor(...args: ConstructorParameters<typeof original.GraphQLClient>) {
      super(...args);
      constructed.clients += 1;
    }
  }
  return { ...original, GraphQLClient: CountingClient };
});

const GRAPHQL_URL = 'https://gql.test/graphql';
const persistedDocuments = JSON.parse(readFileSync(new URL('../../persisted-documents.json', import.meta.url), 'utf8')) as Record<string, string>;

function clientWith(
  respond: Parameters<typeof recordingFetch>[0],
  extra: { graphqlAuth?: 'query' | 'header'; maxRetries?: number; graphqlUrl?: string; persistedDocuments?: 'auto' | 'always' | 'never' } = {},
) {
  const recorder = recordingFetch(respond);
  const rp = createRunpodClient({ apiKey: TEST_API_KEY, graphqlUrl: GRAPHQL_URL, fetch: recorder.fetch, maxRetries: 0, ...extra });
  return { rp, calls: recorder.calls };
}

/** A core double that records what the GraphQL client asks of it. */
function recordingCore(answer: string): { core: HttpCore; requests: HttpRequest[] } {
  const real = createHttpCoreFromOptions({ apiKey: TEST_API_KEY, graphqlUrl: GRAPHQL_URL });
  const requests: HttpRequest[] = [];
  const core: HttpCore = {
    ...real,
    request: async (req) => {
      requests.push(req);
      return { status: 200, headers: new Headers({ 'content-type': 'application/json' }), text: answer };
    },
  };
  return { core, requests };
}

describe('GraphQL client: one structure per client', () => {
  it('builds one graphql-request client per RunpodClient, on its first call, however many calls it makes', async () => {
    const before = constructed.clients;
    const { rp } = clientWith(() => json({ data: { pod: podFixture() } }));
    expect(constructed.clients - before).toBe(0);
    await rp.pods.get('pod-1');
    expect(constructed.clients - before).toBe(1);
    for (let i = 0; i < 5; i++) await rp.pods.get('pod-1');
    await rp.graphql.request('query Mine { myself { id } }');
    expect(constructed.clients - before).toBe(1);
  });

  it('concurrent calls keep their own variables, options and answers', async () => {
    const { rp, calls } = clientWith((call) => {
      const body = JSON.parse(call.body!) as { variables: { input: { podId: string } } };
      return json({ data: { pod: podFixture({ id: body.variables.input.podId }) } });
    });
    const pods = await Promise.all(['a', 'b', 'c'].map((id) => rp.pods.get(`pod-${id}`)));
    expect(pods.map((p) => p?.id)).toEqual(['pod-a', 'pod-b', 'pod-c']);
    expect(calls).toHaveLength(3);
  });
});

describe('GraphQL client: operation facts', () => {
  it('sends the generated document with its operation name and variables (RunPod\'s GraphQL keeps no persisted documents)', async () => {
    const { rp, calls } = clientWith(() => json({ data: { pod: podFixture() } }), { graphqlUrl: 'https://api.runpod.io/graphql' });
    await rp.pods.get('pod-1');
    const body = JSON.parse(calls[0]!.body!) as Record<string, unknown>;
    expect(body).toEqual({ query: String(PodDocument), operationName: 'Pod', variables: { input: { podId: 'pod-1' } } });
  });

  it("sends a hashed document's id with its text to a gateway, the id alone with persistedDocuments: 'always', and the text alone with 'never'", async () => {
    const hash = (PodDocument as unknown as { __meta__: { hash: string } }).__meta__.hash;
    expect(persistedDocuments[hash]).toBeDefined();
    const gateway = 'https://gateway.example.test/graphql';
    const answer = () => json({ data: { pod: podFixture() } });
    const auto = clientWith(answer, { graphqlUrl: gateway });
    await auto.rp.pods.get('pod-1');
    expect(JSON.parse(auto.calls[0]!.body!)).toEqual({ documentId: hash, query: String(PodDocument), operationName: 'Pod', variables: { input: { podId: 'pod-1' } } });
    const always = clientWith(answer, { graphqlUrl: gateway, persistedDocuments: 'always' });
    await always.rp.pods.get('pod-1');
    expect(JSON.parse(always.calls[0]!.body!)).toEqual({ documentId: hash, operationName: 'Pod', variables: { input: { podId: 'pod-1' } } });
    const never = clientWith(answer, { graphqlUrl: gateway, persistedDocuments: 'never' });
    await never.rp.pods.get('pod-1');
    expect(JSON.parse(never.calls[0]!.body!)).not.toHaveProperty('documentId');
    // A document with no hash cannot go as an id: refused before anything is sent.
    const err = await captureError(always.rp.graphql.request('query Mine { myself { id } }'));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toContain("persistedDocuments is 'always'");
    expect(always.calls).toHaveLength(1);
  });

  it('takes name and kind from the codegen metadata of a generated document, not from its text', async () => {
    // The text says query, the metadata says mutation: a mutation is not resent after a 503.
    const document = Object.assign(new String('query Looks { myself { id } }'), { __meta__: { operationName: 'Renamed', operationType: 'mutation' } });
    const { rp, calls } = clientWith(() => json({ errors: [{ message: 'busy' }] }, { status: 503 }), { maxRetries: 3 });
    const err = await captureError(rp.graphql.request(document as unknown as string));
    expect(calls).toHaveLength(1);
    expect(err.message).toContain('Renamed');
    expect((JSON.parse(calls[0]!.body!) as { operationName: string }).operationName).toBe('Renamed');
  });

  it("parses a user's plain-string document: an anonymous mutation is not resent, a query is", async () => {
    const { rp, calls } = clientWith(() => json({ errors: [{ message: 'busy' }] }, { status: 503 }), { maxRetries: 1 });
    await captureError(rp.graphql.request('mutation { podStop(input: {podId: "p"}) { id } }'));
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0]!.body!)).not.toHaveProperty('operationName');
    await captureError(rp.graphql.request('query { myself { id } }', undefined, { maxRetries: 1 }));
    expect(calls).toHaveLength(3);
  });

  it('accepts a DocumentNode and sends its printed text', async () => {
    const { rp, calls } = clientWith(() => json({ data: { myself: { id: 'u' } } }));
    const data = await rp.graphql.request(parse('query Me { myself { id } }') as unknown as string);
    expect(data).toEqual({ myself: { id: 'u' } });
    expect(JSON.parse(calls[0]!.body!)).toMatchObject({ operationName: 'Me', query: expect.stringContaining('myself') as unknown });
  });

  it('refuses invalid documents, several operations and subscriptions before sending', async () => {
    const { rp, calls } = clientWith(() => json({ data: {} }));
    expect((await captureError<ValidationError>(rp.graphql.request('query {'))).field).toBe('document');
    expect((await captureError<ValidationError>(rp.graphql.request('query A { a } query B { b }'))).message).toContain('exactly one');
    expect((await captureError<ValidationError>(rp.graphql.request('subscription S { s }'))).message).toContain('subscriptions');
    expect(calls).toHaveLength(0);
  });
});

describe('GraphQL client: request fields', () => {
  it('asks the core for the graphql rate-limit bucket, with the key in the query by default', async () => {
    const { core, requests } = recordingCore(JSON.stringify({ data: { myself: { id: 'u' } } }));
    await createGraphQLClient(core).request('query Me { myself { id } }');
    expect(requests[0]).toMatchObject({ rateLimitKey: 'graphql', auth: 'api-key-query', method: 'POST', operation: 'Me', idempotent: true });
  });

  it("graphqlAuth 'query' puts the key in the URL and sends no Authorization header", async () => {
    const { rp, calls } = clientWith(() => json({ data: { pod: podFixture() } }), { graphqlAuth: 'query' });
    await rp.pods.get('pod-1');
    expect(calls[0]!.url.searchParams.get('api_key')).toBe(TEST_API_KEY);
    expect(calls[0]!.headers.get('authorization')).toBeNull();
  });

  it("graphqlAuth 'header' sends Authorization: Bearer and keeps the key out of the URL", async () => {
    const { rp, calls } = clientWith(() => json({ data: { pod: podFixture() } }), { graphqlAuth: 'header' });
    await rp.pods.get('pod-1');
    expect(calls[0]!.headers.get('authorization')).toBe(`Bearer ${TEST_API_KEY}`);
    expect(calls[0]!.url.search).toBe('');
    expect(calls[0]!.url.href).not.toContain(TEST_API_KEY);
  });

  it("graphqlAuth 'header' keeps the key out of errors too", async () => {
    const { rp } = clientWith(() => json({ errors: [{ message: `bad key ${TEST_API_KEY}` }] }), { graphqlAuth: 'header' });
    const err = await captureError<GraphQLResponseError>(rp.pods.get('pod-1'));
    expect(err).toBeInstanceOf(GraphQLResponseError);
    expect(err.request?.url).toBe(GRAPHQL_URL);
  });
});

describe('GraphQL client: answers of the wrong shape are ServerErrors, never TypeErrors', () => {
  const cases: Array<[string, unknown]> = [
    ['errors: [null]', { errors: [null] }],
    ['errors: [null] next to data', { data: { pod: null }, errors: [null] }],
    ['errors entry without a message', { errors: [{ path: ['pod'] }] }],
    ['errors entry with a numeric message', { errors: [{ message: 42 }] }],
    ['errors as an object', { errors: { message: 'x' } }],
    ['errors as a string', { errors: 'boom' }],
    ['data as a string', { data: 'pod' }],
    ['data as an array', { data: [1, 2] }],
    ['data as a number', { data: 7 }],
    ['data null without errors', { data: null }],
    ['neither data nor errors', {}],
    ['an array answer', [{ data: {} }]],
    ['a bare string answer', 'hello'],
    ['null', null],
  ];
  for (const [name, answer] of cases) {
    it(name, async () => {
      const { rp } = clientWith(() => json(answer));
      const err = await captureError(rp.graphql.request('query Me { myself { id } }'));
      expect(err).toBeInstanceOf(ServerError);
      expect(err.message).toContain('Me: unexpected answer');
    });
  }

  it('an empty errors list with data is a success', async () => {
    const { rp } = clientWith(() => json({ data: { myself: { id: 'u' } }, errors: [] }));
    await expect(rp.graphql.request('query Me { myself { id } }')).resolves.toEqual({ myself: { id: 'u' } });
  });

  it('real errors still map to GraphQLResponseError with the partial data', async () => {
    const { rp } = clientWith(() => json({ data: { myself: null }, errors: [{ message: 'nope', extensions: { code: 'RUNPOD' } }] }));
    const err = await captureError<GraphQLResponseError>(rp.graphql.request('query Me { myself { id } }'));
    expect(err).toBeInstanceOf(GraphQLResponseError);
    expect(err.code).toBe('RUNPOD');
    expect(err.data).toEqual({ myself: null });
  });
});

describe('GraphQL client: start-up', () => {
  it('variables that cannot travel as JSON are refused before the GraphQL runtime loads (even when it never does)', async () => {
    vi.resetModules();
    // An import that never settles: the refusal must not wait for it.
    vi.doMock('../../src/graphql/graphql-runtime.js', () => new Promise(() => {}));
    try {
      const { createGraphQLClient: fresh } = await import('../../src/graphql/graphql-client.js');
      const { createHttpCoreFromOptions: freshCore } = await import('../../src/transport/http-core.js');
      const { ValidationError: FreshValidationError } = await import('../../src/errors.js');
      const requests: HttpRequest[] = [];
      const core = freshCore({ apiKey: TEST_API_KEY, graphqlUrl: GRAPHQL_URL, fetch: async () => expect.unreachable('nothing is sent') });
      const client = fresh({ ...core, request: async (req) => (requests.push(req), expect.unreachable('nothing is sent')) });
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      for (const variables of [cyclic, { n: 10n }]) {
        const err: unknown = await client.request('query Q($n: Int) { myself { id } }', variables as never).then(
          () => expect.unreachable('refused'),
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(FreshValidationError);
        expect((err as ValidationError).field).toBe('variables');
      }
      expect(requests).toEqual([]);
    } finally {
      vi.doUnmock('../../src/graphql/graphql-runtime.js');
      vi.resetModules();
    }
  });

  it('only graphql-runtime.ts imports graphql or graphql-request at run time, and nothing imports it statically', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const src = new URL('../../src/', import.meta.url).pathname;
    const files = (readdirSync(src, { recursive: true }) as string[])
      // The servers (emulator, gateway) and the CLI are entries of their own, never in a client's bundle.
      .filter((f) => f.endsWith('.ts') && !/^(emulator|gateway|codegen|cli)\//.test(f) && !f.includes('__generated__'))
      .map((f) => [f, readFileSync(join(src, f), 'utf8')] as const);
    expect(files.length).toBeGreaterThan(20);
    const eager = files.filter(([, text]) => /^(import|export)\s+(?!type\b)[^;]*from\s+['"](graphql|graphql-request)['"]/m.test(text)).map(([f]) => f);
    // The runtime, and the in-process executor (schema, executor, routes), which load on first use.
    const lazy = ['graphql/executable-schema.ts', 'graphql/graphql-runtime.ts', 'graphql/in-process/executor.ts', 'graphql/in-process/plan.ts', 'graphql/in-process/route.ts', 'graphql/in-process/static-pass.ts'];
    expect(eager.sort()).toEqual(lazy);
    // None of them is imported statically, except by another of them.
    for (const module of lazy) {
      const base = module.split('/').pop()!.replace(/\.ts$/, '.js');
      const importers = files.filter(([f, text]) => new RegExp(`^(import|export)\\s+(?!type\\b)[^;]*from\\s+['"][./]+(?:[\\w-]+/)*${base.replace('.', '\\.')}['"]`, 'm').test(text)).map(([f]) => f);
      expect(importers.filter((f) => !lazy.includes(f)), module).toEqual([]);
    }
  });
});
