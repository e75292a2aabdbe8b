import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadGraphQLRuntime } from '../../src/graphql/graphql-client.js';
import { ConnectionError, createRunpodClient, LOG_LEVELS, ValidationError, type LogLevel, type RunpodLogger } from '../../src/index.js';
import { createRunpodRestClient } from '../../src/rest/index.js';
import { podFixture } from '../fixtures.js';
import { assertNoSecret, captureError, json, recordingFetch, settle, TEST_API_KEY } from '../helpers.js';

interface Line {
  level: Exclude<LogLevel, 'off'>;
  message: string;
  fields: Record<string, unknown> | undefined;
}

/** A logger that keeps every line it is given, as pino or winston would receive them. */
function memoryLogger(): RunpodLogger & { lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: Line['level']) => (message: string, fields?: unknown) => void lines.push({ level, message, fields: fields as Line['fields'] });
  return { lines, error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

const restPod = { id: 'pod-1', name: 'p', desiredStatus: 'RUNNING', imageName: 'img' };

beforeAll(() => loadGraphQLRuntime());
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

describe("logLevel: 'debug'", () => {
  it('logs each attempt with method, redacted URL, operation, status and duration; each retry with its reason', async () => {
    vi.useFakeTimers();
    const logger = memoryLogger();
    const { fetch, calls } = recordingFetch((_c, i) => (i === 0 ? json({ error: 'busy' }, { status: 503 }) : json(restPod)));
    const rest = createRunpodRestClient({ apiKey: TEST_API_KEY, fetch, logLevel: 'debug', logger, restUrl: 'https://rest.test/v2' });
    await settle(rest.pods.get('pod-1'));
    expect(calls).toHaveLength(2);
    const attempts = logger.lines.filter((l) => l.level === 'debug' && l.fields?.method);
    expect(attempts.map((l) => l.fields)).toEqual([
      expect.objectContaining({ method: 'GET', url: 'https://rest.test/v2/pods/pod-1', operation: 'GET /pods/{id}', attempt: 1, status: 503, durationMs: expect.any(Number) }),
      expect.objectContaining({ method: 'GET', url: 'https://rest.test/v2/pods/pod-1', attempt: 2, status: 200 }),
    ]);
    expect(attempts[0]!.message).toMatch(/^runpod-gql: GET https:\/\/rest\.test\/v2\/pods\/pod-1 \(GET \/pods\/\{id\}, attempt 1\) → HTTP 503 in \d+ ms$/);
    const retries = logger.lines.filter((l) => l.level === 'info');
    expect(retries).toHaveLength(1);
    expect(retries[0]!.message).toMatch(/retrying GET \/pods\/\{id\} in \d+ ms after HTTP 503 \(retry 1 of 2\)/);
    expect(retries[0]!.fields).toMatchObject({ reason: 503, attempt: 2, delayMs: expect.any(Number) });
  });

  it('logs a connection failure and a time-out as the attempt outcome', async () => {
    const logger = memoryLogger();
    const fetch = async () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) });
    };
    const rest = createRunpodRestClient({ apiKey: TEST_API_KEY, fetch, logLevel: 'debug', logger, maxRetries: 0 });
    await captureError(rest.pods.get('pod-1'));
    const attempt = logger.lines.find((l) => l.fields?.attempt === 1)!;
    expect(attempt.message).toMatch(/→ connection failure \(fetch failed: connect ECONNREFUSED 127\.0\.0\.1:9\) in \d+ ms/);
    expect(attempt.fields).toMatchObject({ reason: expect.stringContaining('ECONNREFUSED') });

    const slow = memoryLogger();
    const hang = (_i: unknown, init?: RequestInit) => new Promise<Response>((_r, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)));
    const timing = createRunpodRestClient({ apiKey: TEST_API_KEY, fetch: hang, logLevel: 'debug', logger: slow, maxRetries: 0, timeoutMs: 5 });
    await captureError(timing.pods.get('pod-1'));
    expect(slow.lines.find((l) => l.fields?.attempt === 1)?.message).toMatch(/→ timeout in \d+ ms/);
  });

  it('logs a pacing wait with its bucket', async () => {
    const logger = memoryLogger();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { fetch } = recordingFetch(async (_c, i) => {
      if (i === 0) await gate;
      return json(restPod);
    });
    const rest = createRunpodRestClient({ apiKey: TEST_API_KEY, fetch, logLevel: 'debug', logger, rateLimits: { rest: { concurrency: 1 } } });
    const first = rest.pods.get('pod-1');
    const second = rest.pods.get('pod-1');
    // The second call waits for the first one's slot; its wait is what the line reports.
    await new Promise((r) => setTimeout(r, 20));
    release();
    await Promise.all([first, second]);
    // The second call waited at least the 20 ms the first held its slot (a busy machine may show a
    // short wait for the first call too: that line is allowed).
    const waits = logger.lines.filter((l) => l.fields?.bucket === 'rest' && (l.fields.durationMs as number) >= 15);
    expect(waits).toHaveLength(1);
    expect(waits[0]!.message).toMatch(/GET \/pods\/\{id\} waited \d+ ms for its turn in pacing bucket rest/);
  });

  it('never writes the key: GraphQL with the key in the query, a server echoing it, a failure quoting the URL', async () => {
    const logger = memoryLogger();
    const fetch = async (input: string | URL | Request) => {
      const url = String(input);
      throw new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ECONNRESET ${url} ${TEST_API_KEY}`), { code: 'ECONNRESET' }) });
    };
    const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, logLevel: 'debug', logger, maxRetries: 1, graphqlUrl: 'https://gql.test/graphql' });
    vi.useFakeTimers();
    await captureError(settle(rp.pods.get('pod-1')));
    expect(logger.lines.length).toBeGreaterThanOrEqual(3);
    for (const line of logger.lines) assertNoSecret([line.message, line.fields]);
  });
});

describe('levels', () => {
  it('each level writes itself and the quieter ones only', async () => {
    for (const logLevel of LOG_LEVELS) {
      vi.useFakeTimers();
      const logger = memoryLogger();
      const { fetch } = recordingFetch((_c, i) => (i === 0 ? json({}, { status: 502 }) : json({ data: { pod: podFixture() } })));
      const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch, logLevel, logger });
      await settle(rp.pods.get('pod-1'));
      vi.useRealTimers();
      const levels = new Set(logger.lines.map((l) => l.level));
      expect([...levels].sort(), logLevel).toEqual({ off: [], error: [], warn: [], info: ['info'], debug: ['debug', 'info'] }[logLevel]);
    }
  });

  it("defaults to 'warn'; RUNPOD_LOG sets it where the option is absent; the option wins", async () => {
    const run = async (options: { logLevel?: LogLevel }) => {
      const logger = memoryLogger();
      const { fetch } = recordingFetch(() => json({ data: { pod: podFixture() } }));
      await createRunpodClient({ apiKey: TEST_API_KEY, fetch, logger, ...options }).pods.get('pod-1');
      return logger.lines.length;
    };
    expect(await run({})).toBe(0);
    vi.stubEnv('RUNPOD_LOG', 'debug');
    expect(await run({})).toBe(1);
    vi.stubEnv('RUNPOD_LOG', ' DEBUG\n');
    expect(await run({})).toBe(1);
    expect(await run({ logLevel: 'warn' })).toBe(0);
  });

  it('a wrong RUNPOD_LOG, logLevel or logger is a ValidationError naming it', () => {
    vi.stubEnv('RUNPOD_LOG', 'verbose');
    const env = (() => {
      try {
        createRunpodClient({ apiKey: TEST_API_KEY });
      } catch (err) {
        return err;
      }
    })();
    expect(env).toBeInstanceOf(ValidationError);
    expect(env).toMatchObject({ field: 'RUNPOD_LOG' });
    vi.unstubAllEnvs();
    expect(() => createRunpodClient({ apiKey: TEST_API_KEY, logLevel: 'loud' as LogLevel })).toThrow(expect.objectContaining({ name: 'ValidationError', field: 'logLevel' }));
    expect(() => createRunpodClient({ apiKey: TEST_API_KEY, logger: { info: () => undefined } as unknown as RunpodLogger })).toThrow(
      expect.objectContaining({ name: 'ValidationError', field: 'logger' }),
    );
  });

  it('a logger that throws changes nothing about the call', async () => {
    const boom = () => {
      throw new Error('logger down');
    };
    const { fetch } = recordingFetch(() => json(restPod));
    const rest = createRunpodRestClient({ apiKey: TEST_API_KEY, fetch, logLevel: 'debug', logger: { error: boom, warn: boom, info: boom, debug: boom } });
    await expect(rest.pods.get('pod-1')).resolves.toMatchObject({ id: 'pod-1' });
    const failing = createRunpodRestClient({ apiKey: TEST_API_KEY, fetch: async () => Promise.reject(new TypeError('fetch failed')), logLevel: 'debug', logger: { error: boom, warn: boom, info: boom, debug: boom }, maxRetries: 0 });
    expect(await captureError(failing.pods.get('pod-1'))).toBeInstanceOf(ConnectionError);
  });
});
