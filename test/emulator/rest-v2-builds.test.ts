// Serverless builds: the emulator's state and routes, their conformance to the merged contract, and
// the client's `rest.endpoints.builds(id)` and `build(id, buildId)` against them.
import { describe, expect, it } from 'vitest';
import { createEmulator, EMULATOR_API_KEY } from '../../src/emulator/index.js';
import { createRunpodRestClient, NotFoundError, ValidationError, type Build, type BuildState } from '../../src/rest/index.js';
import { captureError } from '../helpers.js';
import { answerProblems, operationFor } from './rest-v2-contract-check.js';

function session() {
  const emulator = createEmulator({ clock: 'manual', restRateLimitPerMinute: 100_000 });
  const { restUrl } = emulator.clientOptions();
  const problems: string[] = [];
  const called = new Set<string>();
  async function call(path: string, key = EMULATOR_API_KEY) {
    const res = await emulator.fetch(new Request(`${restUrl}${path}`, { headers: { authorization: `Bearer ${key}` } }));
    const text = await res.text();
    const pathname = new URL(`${restUrl}${path}`).pathname;
    const found = operationFor('GET', pathname);
    if (found) called.add(found.op.operationId);
    problems.push(...answerProblems('GET', pathname, res.status, res.headers.get('content-type'), text));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- checked against the contract above
    return { status: res.status, json: JSON.parse(text) as any };
  }
  const endpoint = emulator.endpoints.create({ handler: 'echo' });
  const rest = createRunpodRestClient({ ...emulator.clientOptions(), maxRetries: 0 });
  return { emulator, call, problems, called, endpoint, rest };
}

describe('serverless builds', () => {
  it('a build walks its states on the emulator clock; list and get answer what the contract says', async () => {
    const { emulator, call, problems, called, endpoint } = session();
    const ok = emulator.builds.start({ endpointId: endpoint, commitHash: 'abc123', commitMessage: 'fix', branch: 'main' });
    const failed = emulator.builds.start({ endpointId: endpoint, outcome: 'FAILED', stepMs: 1000 });
    const tested = emulator.builds.start({ endpointId: endpoint, outcome: 'TEST_FAILED', error: 'smoke test exited 1' });
    const cancelled = emulator.builds.start({ endpointId: endpoint, outcome: 'CANCELLED' });
    const states = async () => Object.fromEntries(((await call(`/serverless/${endpoint}/builds`)).json.builds as Build[]).map((b) => [b.id, b.status]));

    expect(await states()).toEqual({ [ok]: 'PENDING', [failed]: 'PENDING', [tested]: 'PENDING', [cancelled]: 'PENDING' });
    await emulator.clock.advance(1000);
    expect(await states()).toEqual({ [ok]: 'BUILDING', [failed]: 'BUILDING', [tested]: 'BUILDING', [cancelled]: 'CANCELLED' });
    await emulator.clock.advance(1000);
    expect(await states()).toEqual({ [ok]: 'UPLOADING', [failed]: 'FAILED', [tested]: 'UPLOADING', [cancelled]: 'CANCELLED' });
    await emulator.clock.advance(1000);
    expect((await states())[ok]).toBe('TESTING');
    await emulator.clock.advance(1000);
    expect(await states()).toEqual({ [ok]: 'COMPLETED', [failed]: 'FAILED', [tested]: 'TEST_FAILED', [cancelled]: 'CANCELLED' });

    const done = (await call(`/serverless/${endpoint}/builds/${ok}`)).json;
    expect(done).toMatchObject({ id: ok, status: 'COMPLETED', commitHash: 'abc123', branch: 'main', error: null, imageName: `registry.runpod.net/${endpoint}:abc123` });
    expect(Date.parse(done.completedAt) - Date.parse(done.startedAt)).toBe(3000);
    expect((await call(`/serverless/${endpoint}/builds/${tested}`)).json.error).toBe('smoke test exited 1');
    expect((await call(`/serverless/${endpoint}/builds/${cancelled}`)).json).toMatchObject({ startedAt: null, error: null });
    expect((await call(`/serverless/${endpoint}/builds/${failed}`)).json.error).toMatch(/build failed/);

    expect((await call(`/serverless/${endpoint}/builds/nope`)).status).toBe(404);
    expect((await call('/serverless/nope/builds')).status).toBe(404);
    expect((await call(`/serverless/${endpoint}/builds?limit=101`)).status).toBe(422);
    expect((await call(`/serverless/${endpoint}/builds?limit=100`)).status).toBe(200);
    expect(problems).toEqual([]);
    expect([...called].sort()).toEqual(['getEndpointBuild', 'listEndpointBuilds']);
  });

  it('builds page newest first, 100 at most a page; the client reads every page and checks its input first', async () => {
    const { emulator, endpoint, rest, call, problems } = session();
    const ids: string[] = [];
    for (let i = 0; i < 230; i++) ids.push(emulator.builds.start({ endpointId: endpoint, commitHash: `c${i}` }));
    const first = (await call(`/serverless/${endpoint}/builds`)).json;
    expect(first.builds).toHaveLength(100);
    expect(first.pagination.hasNextPage).toBe(true);

    const all = await rest.endpoints.builds(endpoint);
    expect(all.map((b) => b.id)).toEqual([...ids].reverse());
    const sizes: number[] = [];
    for await (const page of rest.endpoints.builds(endpoint, { limit: 100 }).pages()) sizes.push(page.items.length);
    expect(sizes).toEqual([100, 100, 30]);
    const one: Build = await rest.endpoints.build(endpoint, ids[0]!);
    const status: BuildState = one.status;
    expect(status).toBe('PENDING');

    expect((await captureError<ValidationError>(rest.endpoints.builds(endpoint, { limit: 101 }))).field).toBe('limit');
    expect((await captureError<ValidationError>(rest.endpoints.build(endpoint, '..'))).field).toBe('buildId');
    expect(await captureError(rest.endpoints.build(endpoint, 'missing'))).toBeInstanceOf(NotFoundError);
    expect(problems).toEqual([]);
  });

  it('another account sees none of them; builds.start refuses what cannot be', async () => {
    const { emulator, endpoint, call } = session();
    emulator.accounts.add('rpa_builds_other');
    emulator.builds.start({ endpointId: endpoint });
    expect((await call(`/serverless/${endpoint}/builds`, 'rpa_builds_other')).status).toBe(404);
    expect(() => emulator.builds.start({ endpointId: 'nope' })).toThrow(/owns no endpoint/);
    expect(() => emulator.builds.start({ endpointId: endpoint, outcome: 'EXPLODED' as 'FAILED' })).toThrow(/outcome/);
    expect(() => emulator.builds.start({ endpointId: endpoint, stepMs: 0 })).toThrow(/stepMs/);
  });
});
