import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const KEY = 'rpa_cli_transport';
// rp.pods on REST v2 is another change of issue 20 (src/pods/); its CLI case runs once that is in.
const podsHaveRestPath = existsSync(new URL('../../src/pods/', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The built binary as a real process, pointed at `server` by the environment, as a user would. */
function cli(server: ListeningEmulator, args: string[], extra: Record<string, string> = {}): Promise<Run> {
  const env = { ...extra, PATH: process.env.PATH ?? '', RUNPOD_API_KEY: KEY, RUNPOD_GRAPHQL_URL: server.graphqlUrl, RUNPOD_REST_URL: server.restUrl, RUNPOD_SERVERLESS_URL: server.serverlessUrl };
  return new Promise((resolve) => {
    execFile(process.execPath, ['dist/cli/main.js', ...args], { cwd: root, timeout: 30_000, env }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

let retired: ListeningEmulator;
let live: ListeningEmulator;
beforeAll(async () => {
  retired = await listen(createEmulator({ apiKeys: [KEY], graphqlRetired: true }), { port: 0, host: '127.0.0.1' });
  live = await listen(createEmulator({ apiKeys: [KEY] }), { port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await retired?.close();
  await live?.close();
});

describe('the CLI after GraphQL is retired (an emulator with graphqlRetired, over HTTP)', () => {
  it('gpus lists offers over REST v2 and says so once on stderr', async () => {
    const run = await cli(retired, ['gpus', '--count', '2', '--json']);
    expect(run.code).toBe(0);
    const offers = JSON.parse(run.stdout) as Array<{ gpuTypeId: string; gpuCount: number; availableGpuCounts: number[] | null }>;
    expect(offers.length).toBeGreaterThan(2);
    expect(offers.every((o) => o.gpuCount === 2 && o.availableGpuCounts === null)).toBe(true);
    expect(run.stderr).toBe('note: GraphQL is retired (410 Gone); gpuTypes went on over REST v2 (--transport rest skips GraphQL)\n');
  });

  it('gpus --transport rest sends no GraphQL and prints no note; --transport graphql is strict', async () => {
    const rest = await cli(retired, ['gpus', '--transport', 'rest']);
    expect(rest.code).toBe(0);
    expect(rest.stdout).toMatch(/^GPU\s+ID\s+MEMORY/);
    expect(rest.stderr).toBe('');

    const strict = await cli(retired, ['gpus', '--transport', 'graphql']);
    expect(strict.code).toBe(3);
    expect(strict.stderr).toMatch(/ApiRetiredError/);
    expect(strict.stdout).toBe('');
  });

  it('RUNPOD_TRANSPORT=rest chooses REST v2 once for a whole script: no GraphQL request and no note; --transport still wins; a bad value is refused', async () => {
    const rest = await cli(retired, ['gpus', '--json'], { RUNPOD_TRANSPORT: 'rest' });
    expect(rest.code).toBe(0);
    expect(rest.stderr).toBe('');
    expect((JSON.parse(rest.stdout) as unknown[]).length).toBeGreaterThan(2);
    const strict = await cli(retired, ['gpus', '--transport', 'graphql'], { RUNPOD_TRANSPORT: 'rest' });
    expect(strict.code).toBe(3);
    const bad = await cli(retired, ['gpus'], { RUNPOD_TRANSPORT: 'soap' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/RUNPOD_TRANSPORT|soap/);
  });

  it('the same offers over either API against a live emulator', async () => {
    const [viaGraphql, viaRest] = await Promise.all([cli(live, ['gpus', '--json', '--transport', 'graphql']), cli(live, ['gpus', '--json', '--transport', 'rest'])]);
    expect(viaGraphql.code).toBe(0);
    expect(viaRest.code).toBe(0);
    const ids = (run: Run) => (JSON.parse(run.stdout) as Array<{ gpuTypeId: string }>).map((o) => o.gpuTypeId).sort();
    expect(ids(viaRest)).toEqual(ids(viaGraphql));
  });

  it('--transport takes auto, graphql or rest only, on gpus and on pods commands', async () => {
    for (const args of [['gpus', '--transport', 'v2'], ['pods', 'list', '--transport', 'REST'], ['pods', 'get', 'abc', '--transport', '']]) {
      const run = await cli(live, args);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--transport <mode>' argument '[^']*' is invalid\. Allowed choices are auto, graphql, rest\./);
    }
  });

  it.skipIf(!podsHaveRestPath)('pods list works over REST v2 (needs rp.pods on REST v2)', async () => {
    const run = await cli(retired, ['pods', 'list']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\(none\)\n$/);
    expect(run.stderr).toMatch(/^note: GraphQL is retired \(410 Gone\); pods went on over REST v2/);
    const forced = await cli(retired, ['pods', 'list', '--transport', 'rest', '--json']);
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toEqual([]);
  });
});
