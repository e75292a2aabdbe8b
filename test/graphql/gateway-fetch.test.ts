// The page fetcher (`runpod-gql/graphql/fetch`) at the fetch seam: what it sends, how it maps the
// gateway's answers to the package's error classes, which documents it sends twice and when.
import { describe, expect, it } from 'vitest';
import {
  AbortError,
  AuthenticationError,
  ConnectionError,
  GraphQLResponseError,
  PermissionDeniedError,
  PossiblyCreatedError,
  RateLimitError,
  RunpodError,
  ServerError,
  ValidationError,
} from '../../src/errors.js';
import { createGatewayFetcher, type GatewayFetcherOptions } from '../../src/graphql/gateway-fetch.js';
import { GpuTypesDocument } from '../../src/graphql/index.js';
import { json } from '../helpers.js';

const TOKEN = 'page-fetcher-token-0123456789abcdef';
const hashOf = (document: unknown) => (document as { __meta__: { hash: string } }).__meta__.hash;

/** A typed document as codegen's client preset writes one (TypedDocumentString with `__meta__`). */
const doc = <T = Record<string, unknown>>(text: string, hash?: string) =>
  Object.assign(new String(text), hash === undefined ? {} : { __meta__: { hash } }) as unknown as import('@graphql-typed-document-node/core').DocumentTypeDecoration<T, Record<string, never>>;

function fetcherWith(answers: Array<() => Response | Promise<Response>>, options: GatewayFetcherOptions = {}) {
  const calls: Array<{ url: string; headers: Headers; body: Record<string, unknown> }> = [];
  const execute = createGatewayFetcher({
    url: 'https://gateway.example.test/graphql',
    token: TOKEN,
    ...options,
    fetch: async (input, init) => {
      calls.push({ url: String(input), headers: new Headers(init?.headers), body: JSON.parse(String(init?.body)) as Record<string, unknown> });
      const next = answers[Math.min(calls.length - 1, answers.length - 1)]!;
      return next();
    },
  });
  return { execute, calls };
}

async function rejection<T extends RunpodError>(run: Promise<unknown>): Promise<T> {
  const err = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RunpodError);
  // The page's one secret never travels in an error, however it is shown.
  expect(JSON.stringify(err) + String((err as Error).stack) + JSON.stringify((err as { body?: unknown }).body ?? null)).not.toContain(TOKEN);
  return err as T;
}

describe('the page fetcher', () => {
  it("sends a persisted document as { documentId, variables } with the token as Bearer, and resolves with data typed by the document", async () => {
    const { execute, calls } = fetcherWith([() => json({ data: { gpuTypes: [] } })]);
    const data = await execute(GpuTypesDocument, { lowestPriceInput: { gpuCount: 1 } });
    const typed: { gpuTypes: unknown[] | null } = data;
    expect(typed).toEqual({ gpuTypes: [] });
    expect(calls[0]!.body).toEqual({ documentId: hashOf(GpuTypesDocument), variables: { lowestPriceInput: { gpuCount: 1 } } });
    expect(calls[0]!.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(calls[0]!.headers.get('content-type')).toBe('application/json');
    expect(calls[0]!.headers.get('accept')).toBe('application/graphql-response+json');
  });

  it('sends a document without an id as its text; a token function is asked per request; no token, no authorization header', async () => {
    let asked = 0;
    const withFn = fetcherWith([() => json({ data: { myself: null } })], { token: () => (asked++, TOKEN), headers: { 'x-app': 'board' } });
    await withFn.execute(doc('query Mine { myself { id } }'));
    await withFn.execute(doc('query Mine { myself { id } }'), {}, { headers: { 'x-call': '1' } });
    expect(asked).toBe(2);
    expect(withFn.calls[0]!.body).toEqual({ query: 'query Mine { myself { id } }' });
    expect(withFn.calls[1]!.headers.get('x-app')).toBe('board');
    expect(withFn.calls[1]!.headers.get('x-call')).toBe('1');
    const anonymous = fetcherWith([() => json({ data: { myself: null } })], { token: undefined });
    await anonymous.execute(doc('{ myself { id } }'));
    expect(anonymous.calls[0]!.headers.has('authorization')).toBe(false);
  });

  it('defaults to /graphql on the page\'s own origin', async () => {
    const seen: string[] = [];
    const execute = createGatewayFetcher({ fetch: async (input) => (seen.push(String(input)), json({ data: {} })) });
    await execute(GpuTypesDocument, { lowestPriceInput: { gpuCount: 1 } });
    expect(seen).toEqual(['/graphql']);
  });

  it.each([
    [401, AuthenticationError, 'UNAUTHENTICATED'],
    [403, PermissionDeniedError, 'FORBIDDEN'],
    [404, GraphQLResponseError, 'NOT_FOUND'],
    [502, ServerError, 'UPSTREAM_ERROR'],
  ] as const)('an HTTP %i answer is a %s carrying the gateway\'s message, status, body and request id', async (status, ErrorClass, code) => {
    const { execute } = fetcherWith([() => json({ errors: [{ message: `refused (${code})`, extensions: { code } }] }, { status, headers: { 'x-request-id': 'gw-req-1' } })]);
    const err = await rejection<InstanceType<typeof ErrorClass>>(execute(GpuTypesDocument, { lowestPriceInput: { gpuCount: 1 } }));
    expect(err).toBeInstanceOf(ErrorClass);
    expect(err.status).toBe(status);
    expect(err.message).toBe(`GpuTypes failed with HTTP ${status}: refused (${code})`);
    expect(err.requestId).toBe('gw-req-1');
    expect(err.request).toEqual({ method: 'POST', url: 'https://gateway.example.test/graphql', operation: 'GpuTypes' });
  });

  it('a 400 with GraphQL errors is a GraphQLResponseError; a 200 with errors keeps its partial data', async () => {
    const invalid = fetcherWith([() => json({ errors: [{ message: 'Cannot query field "nope"' }] }, { status: 400 })]);
    const err = await rejection<GraphQLResponseError>(invalid.execute(doc('{ nope }')));
    expect(err).toBeInstanceOf(GraphQLResponseError);
    expect(err.status).toBe(400);
    const partial = fetcherWith([() => json({ data: { a: 1, b: null }, errors: [{ message: 'b failed', path: ['b'] }] })]);
    const fieldErr = await rejection<GraphQLResponseError>(partial.execute(doc('{ a b }')));
    expect(fieldErr.data).toEqual({ a: 1, b: null });
    expect(fieldErr.errors).toEqual([{ message: 'b failed', path: ['b'] }]);
  });

  it('a create the gateway could not settle is a PossiblyCreatedError with its marker', async () => {
    const { execute } = fetcherWith([() => json({ errors: [{ message: 'may exist', extensions: { code: 'POSSIBLY_CREATED', createMarker: 'rpgql-create-1' } }] }, { status: 502 })]);
    const err = await rejection<PossiblyCreatedError>(execute(doc('mutation Deploy { podFindAndDeployOnDemand(input: {}) { id } }')));
    expect(err).toBeInstanceOf(PossiblyCreatedError);
    expect(err.createMarker).toBe('rpgql-create-1');
  });

  it('a read answered 429 or 503 is sent again after Retry-After, then fails as RateLimitError with the wait', async () => {
    const busy = (status: number) => () => json({ errors: [{ message: 'slow down' }] }, { status, headers: { 'retry-after': '0' } });
    const { execute, calls } = fetcherWith([busy(429), busy(503), () => json({ data: { ok: true } })]);
    expect(await execute(doc('query Ok { ok }'))).toEqual({ ok: true });
    expect(calls).toHaveLength(3);
    const always = fetcherWith([busy(429)], { maxRetries: 1 });
    const err = await rejection<RateLimitError>(always.execute(doc('query Ok { ok }')));
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfterMs).toBe(0);
    expect(always.calls).toHaveLength(2);
  });

  it('a mutation, an id-only document and a wait over 60 s are never sent twice', async () => {
    const busy = fetcherWith([() => json({ errors: [{ message: 'busy' }] }, { status: 503, headers: { 'retry-after': '0' } })]);
    await rejection(busy.execute(doc('mutation Stop { podStop(input: {podId: "p"}) { id } }')));
    await rejection(busy.execute({ __meta__: { hash: 'sha256:' + 'a'.repeat(64) } } as never));
    expect(busy.calls).toHaveLength(2);
    expect(busy.calls[1]!.body).toEqual({ documentId: 'sha256:' + 'a'.repeat(64) });
    const long = fetcherWith([() => json({ errors: [{ message: 'later' }] }, { status: 429, headers: { 'retry-after': '120' } })]);
    expect((await rejection<RateLimitError>(long.execute(doc('query Q { q }')))).retryAfterMs).toBe(120_000);
    expect(long.calls).toHaveLength(1);
  });

  it('reads a typed DocumentNode: its hash, its kind from its definitions, its text from its source', async () => {
    const node = { kind: 'Document', definitions: [{ kind: 'OperationDefinition', operation: 'query' }], loc: { source: { body: 'query N { n }' } } };
    const { execute, calls } = fetcherWith([() => json({ errors: [{ message: 'busy' }] }, { status: 503, headers: { 'retry-after': '0' } }), () => json({ data: { n: 1 } })]);
    expect(await execute(node as never)).toEqual({ n: 1 });
    expect(calls.map((c) => c.body)).toEqual([{ query: 'query N { n }' }, { query: 'query N { n }' }]);
    const hashed = fetcherWith([() => json({ data: { n: 1 } })]);
    await hashed.execute({ ...node, loc: undefined, __meta__: { hash: 'abc123' } } as never);
    expect(hashed.calls[0]!.body).toEqual({ documentId: 'abc123' });
  });

  it('wrong-shaped answers are ServerErrors, never a TypeError; bad documents a ValidationError before anything is sent', async () => {
    for (const answer of [() => new Response('<html>bad gateway</html>', { status: 200 }), () => json(null), () => json({ data: 'nope' }), () => json([1, 2])]) {
      const { execute } = fetcherWith([answer]);
      expect(await rejection(execute(doc('{ a }')))).toBeInstanceOf(ServerError);
    }
    const { execute, calls } = fetcherWith([() => json({ data: {} })]);
    expect(await rejection(execute({} as never))).toBeInstanceOf(ValidationError);
    expect(await rejection(execute({ __meta__: { hash: 'has spaces in it' } } as never))).toBeInstanceOf(ValidationError);
    expect(calls).toHaveLength(0);
  });

  it('a gateway that echoes the token has it scrubbed from the error; a failed fetch is a ConnectionError, an abort an AbortError', async () => {
    const echo = fetcherWith([() => json({ errors: [{ message: `token ${TOKEN} is not known` }] }, { status: 401 })]);
    const err = await rejection(echo.execute(doc('{ a }')));
    expect(err.message).toContain('[REDACTED]');
    const down = fetcherWith([() => Promise.reject(new TypeError('Failed to fetch'))]);
    expect(await rejection(down.execute(doc('{ a }')))).toBeInstanceOf(ConnectionError);
    const controller = new AbortController();
    const slow = createGatewayFetcher({
      token: TOKEN,
      fetch: async (_input, init) => {
        if (init?.signal?.aborted) throw new DOMException('aborted', 'AbortError');
        setTimeout(() => controller.abort(), 5);
        return json({ errors: [{ message: 'busy' }] }, { status: 503, headers: { 'retry-after': '30' } });
      },
    });
    const started = Date.now();
    expect(await rejection(slow(doc('query Q { q }'), {}, { signal: controller.signal }))).toBeInstanceOf(AbortError);
    // The 30 s wait ended with the abort.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
