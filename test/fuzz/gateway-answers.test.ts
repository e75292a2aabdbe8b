// The gateway's answers (src/gateway/answers.ts, cors.ts) under any mix of failures and inputs:
// a status from the documented set, never a thrown TypeError, no data beside a non-2xx status,
// what was read never reported as failed; CORS origins either normalized or a ValidationError; the
// upstream request ids kept without any spelling of the key.
import fc from 'fast-check';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConnectionError,
  NotFoundError,
  PermissionDeniedError,
  PossiblyCreatedError,
  RateLimitError,
  RunpodError,
  ServerError,
  TimeoutError,
  ValidationError,
} from '../../src/errors.js';
import { resultAnswer, thrownAnswer } from '../../src/gateway/answers.js';
import { parseCorsOrigins } from '../../src/gateway/cors.js';
import { createEmulator } from '../../src/emulator/index.js';
import { createGateway } from '../../src/gateway/index.js';
import { counted, echoSpelling, FUZZ_TIMEOUT_MS, params, spellingsOf } from './harness.js';

const STATUSES = new Set([200, 400, 401, 403, 500, 502, 503]);

/** Any failure a resolver or the client may meet, typed or not. */
const failureArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(new AuthenticationError('key refused', { status: 401 })),
  fc.constant(new PermissionDeniedError('denied', { status: 403 })),
  fc.option(fc.oneof(fc.nat(), fc.double(), fc.constant(Number.MAX_SAFE_INTEGER)), { nil: undefined }).map((ms) => new RateLimitError('slow down', { status: 429, retryAfterMs: ms })),
  fc.stringMatching(/^[A-Za-z0-9_-]{0,40}$/).map((marker) => new PossiblyCreatedError('maybe', { createMarker: marker, requestId: `r-${marker}` })),
  fc.constant(new ServerError('down', { status: 503 })),
  fc.constant(new ConnectionError('reset', { notSent: false })),
  fc.constant(new TimeoutError('slow', { timeoutMs: 10 })),
  fc.constant(new ValidationError('input.x', 'bad')),
  fc.constant(new NotFoundError('none', { status: 404 })),
  fc.constant(new Error('plain')),
  fc.anything(),
);

/** Data as an execution leaves it: null, wrappers of nulls, lists, values, nested. */
const dataArb: fc.Arbitrary<Record<string, unknown> | null | undefined> = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.dictionary(fc.constantFrom('pod', 'myself', 'gpuTypes', 'deploy'), fc.oneof(fc.constant(null), fc.constant([]), fc.string(), fc.record({ pods: fc.oneof(fc.constant(null), fc.constant([])) }), fc.record({ id: fc.constant(null) }))),
);

const hasValue = (data: unknown): boolean =>
  data !== null && data !== undefined && (typeof data !== 'object' || Array.isArray(data) || Object.values(data).some(hasValue));

describe("the gateway's answer to any execution result", () => {
  it('property: a documented status, no data beside a non-2xx, data never reported as failed, markers and hints kept', () => {
    fc.assert(
      fc.property(fc.array(failureArb, { maxLength: 4 }), dataArb, fc.boolean(), counted('gateway-answers', (failures, data, passThrough) => {
        const errors = failures.map((failure, i) => new GraphQLError(`field ${i} failed`, { path: ['f', i], originalError: failure instanceof Error ? failure : undefined }));
        const answer = resultAnswer({ data, errors: errors.length ? errors : undefined }, passThrough);
        expect(STATUSES.has(answer.status)).toBe(true);
        if (answer.status !== 200) expect(answer.body.data).toBeUndefined();
        if (errors.length && hasValue(data)) expect(answer.status).toBe(200);
        if (answer.status === 503) expect(answer.headers?.['retry-after']).toMatch(/^[1-9]\d*$/);
        if (answer.status === 401) expect(passThrough && answer.headers?.['www-authenticate']).toMatch(/^Bearer/);
        failures.forEach((failure, i) => {
          // A create that carried no marker leaves `createMarker` out and says what to look for instead (issue 43).
          if (failure instanceof PossiblyCreatedError) {
            const extensions = answer.body.errors?.[i]?.extensions;
            if (failure.createMarker) expect(extensions?.createMarker).toBe(failure.createMarker);
            else {
              expect(extensions).not.toHaveProperty('createMarker');
              if (failure.lookFor) expect(extensions?.lookFor).toBe(failure.lookFor);
            }
          }
        });
        // What is written is JSON, whatever it holds.
        expect(() => JSON.stringify(answer.body)).not.toThrow();
        return true;
      })),
      params(300),
    );
  });

  it('property: any thrown value is a documented status, never a TypeError', () => {
    fc.assert(
      fc.property(failureArb, fc.boolean(), counted('gateway-answers', (failure, passThrough) => {
        const answer = thrownAnswer(failure, passThrough);
        expect(STATUSES.has(answer.status)).toBe(true);
        expect(answer.body.errors?.length).toBe(1);
        if (!(failure instanceof RunpodError)) expect(answer.status).toBe(500);
        return true;
      })),
      params(200),
    );
  });
});

describe('--cors-origin / corsOrigins of any text', () => {
  it('property: an origin comes back as browsers send it, anything else is a ValidationError naming the flag', () => {
    const originLike = fc.oneof(
      fc.string(),
      fc.webUrl().map((u) => u.replace(/[?#].*$/, '')),
      fc.webUrl().map((u) => `${new URL(u).origin}/`),
      fc.constantFrom('*', 'null', 'http://localhost:5173/', 'HTTP://LOCALHOST:5173', 'file:///x', 'http://a:b@host'),
    );
    fc.assert(
      fc.property(originLike, counted('cors-origins', (text) => {
        try {
          const [origin] = parseCorsOrigins([text], '--cors-origin');
          const url = new URL(text);
          expect(origin).toBe(url.origin);
          expect([url.pathname, url.search, url.hash, url.username, url.password]).toEqual(['/', '', '', '', '']);
        } catch (err) {
          expect(err).toBeInstanceOf(ValidationError);
          expect((err as ValidationError).field).toBe('--cors-origin');
        }
        return true;
      })),
      params(300),
    );
  });
});

describe('upstream request ids in a gateway answer', () => {
  it('property: an upstream that echoes the key in x-request-id on a 200 leaves no spelling of it in the answer', async () => {
    const keyArb = fc.stringMatching(/^[A-Za-z0-9_%+/=-]{12,40}$/).map((k) => `rpa_${k}`);
    await fc.assert(
      fc.asyncProperty(keyArb, fc.nat(), fc.constantFrom('rest', 'graphql') as fc.Arbitrary<'rest' | 'graphql'>, counted('gateway-answers', async (key, spelling, upstream) => {
        const emulator = createEmulator({ apiKeys: [key] });
        const { fetch: served, ...urls } = emulator.clientOptions(key);
        const gateway = createGateway({
          tokens: 'read:fuzz-gateway-token-0123456789',
          upstream,
          limits: { rate: false },
          client: {
            ...urls,
            maxRetries: 0,
            rateLimits: false,
            // The emulator's answers, each with an id that echoes the key.
            fetch: async (input, init) => {
              const answer = await served!(input, init);
              const headers = new Headers(answer.headers);
              headers.set('x-request-id', `req-${echoSpelling(key, spelling)}`);
              headers.set('x-runpod-worker-id', echoSpelling(key, spelling + 1));
              return new Response(answer.body, { status: answer.status, headers });
            },
          },
        });
        const response = await gateway.fetch(new Request('http://127.0.0.1/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer fuzz-gateway-token-0123456789' },
          body: JSON.stringify({ query: '{ myself { pods { id } } }' }),
        }));
        emulator.dispose();
        const text = `${JSON.stringify([...response.headers])}\n${await response.text()}`;
        expect(response.status).toBe(200);
        expect(JSON.parse(text.slice(text.indexOf('\n') + 1)).extensions.requestIds.upstream.length).toBeGreaterThan(0);
        expect(spellingsOf(key).filter((s) => text.includes(s))).toEqual([]);
        return true;
      })),
      params(100),
    );
  }, FUZZ_TIMEOUT_MS);
});
