import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type ListeningEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';

// Where the CLI takes its key: --api-key, then --profile, then RUNPOD_API_KEY (trimmed), then the
// [default] profile of ~/.runpod/config.toml (runpod-python's tables, or runpodctl's top-level apiKey).
// A refused key names its source and is never echoed. HOME is a temp dir; the emulator is on 127.0.0.1.
const root = fileURLToPath(new URL('../../', import.meta.url));
const KEY = 'rpa_cli_key_sources';
const OTHER = 'rpa_cli_key_sources_other';
let server: ListeningEmulator;
const homes: string[] = [];
beforeAll(async () => {
  server = await listen(createEmulator({ apiKeys: [KEY, OTHER] }), { port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await server?.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A HOME holding `config` as ~/.runpod/config.toml (none when undefined). */
function home(config?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'runpod-gql-home-'));
  homes.push(dir);
  if (config !== undefined) {
    mkdirSync(join(dir, '.runpod'));
    writeFileSync(join(dir, '.runpod', 'config.toml'), config);
  }
  return dir;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `pods deploy` then `pods list --json` would need two calls; `pods list --json` says which account answered by its pods. */
function cli(args: string[], env: Record<string, string>): Promise<Run> {
  const base = { PATH: process.env.PATH ?? '', RUNPOD_GRAPHQL_URL: server.graphqlUrl, RUNPOD_REST_URL: server.restUrl, RUNPOD_SERVERLESS_URL: server.serverlessUrl };
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['dist/cli/main.js', ...args], { cwd: root, timeout: 30_000, env: { ...base, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin?.end();
  });
}

/** Which account a key reaches: the name of the one pod made on OTHER's account. */
let marker = '';
beforeAll(async () => {
  const made = await cli(['pods', 'deploy', '--gpu', 'NVIDIA RTX A4000', '--image', 'img', '--name', 'on-other', '--json'], { HOME: home(), RUNPOD_API_KEY: OTHER });
  expect(made.code).toBe(0);
  marker = 'on-other';
}, 30_000);
const account = async (run: Run) => {
  expect(run).toMatchObject({ code: 0, stderr: '' });
  return (JSON.parse(run.stdout) as Array<{ name: string }>).some((p) => p.name === marker) ? 'OTHER' : 'KEY';
};

describe('key sources and their precedence', () => {
  it('the [default] profile is read when no key is given', async () => {
    expect(await account(await cli(['pods', 'list', '--json'], { HOME: home(`[default]\napi_key = "${OTHER}"\n`) }))).toBe('OTHER');
  });

  it("runpodctl's top-level apiKey is read too", async () => {
    expect(await account(await cli(['pods', 'list', '--json'], { HOME: home(`apiKey = "${OTHER}"\napiUrl = "https://api.runpod.io/graphql"\n`) }))).toBe('OTHER');
  });

  it('RUNPOD_API_KEY wins over the default profile, and is trimmed (spaces, CR, LF)', async () => {
    expect(await account(await cli(['pods', 'list', '--json'], { HOME: home(`[default]\napi_key = "${OTHER}"\n`), RUNPOD_API_KEY: ` ${KEY}\r\n` }))).toBe('KEY');
  });

  it('--profile NAME wins over RUNPOD_API_KEY; --api-key wins over everything', async () => {
    const config = `[default]\napi_key = "${KEY}"\n\n[work]\napi_key = "${OTHER}"\n`;
    expect(await account(await cli(['pods', 'list', '--json', '--profile', 'work'], { HOME: home(config), RUNPOD_API_KEY: KEY }))).toBe('OTHER');
    expect(await account(await cli(['pods', 'list', '--json', '--api-key', OTHER], { HOME: home(`[default]\napi_key = "${KEY}"\n`), RUNPOD_API_KEY: KEY }))).toBe('OTHER');
  });

  it('--profile and --api-key conflict', async () => {
    const run = await cli(['pods', 'list', '--profile', 'work', '--api-key', KEY], { HOME: home() });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/option '--profile <name>' cannot be used with option '--api-key <key>'/);
  });
});

describe('a bad key or profile names its source, never the key', () => {
  const SECRET = 'rpa_SECRET_5f1e';
  it.each([
    ['RUNPOD_API_KEY', { RUNPOD_API_KEY: `${SECRET}\u0007x` }, [], /the API key from RUNPOD_API_KEY is refused: must be printable/],
    ['the default profile', { HOME: '<home>' }, [], /the API key from ~\/\.runpod\/config\.toml \(profile default\) is refused/],
    ['--api-key', {}, ['--api-key', `${SECRET} x\u0001`], /the API key from --api-key is refused/],
  ] as Array<[string, Record<string, string>, string[], RegExp]>)('%s', async (_name, env, args, stderr) => {
    const withHome = env.HOME ? { ...env, HOME: home(`[default]\napi_key = "${SECRET}\\u0001"\n`) } : { HOME: home(), ...env };
    const run = await cli(['pods', 'list', ...args], withHome);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(stderr);
    expect(run.stderr).not.toContain(SECRET);
    expect(run.stderr).not.toContain('invalid --api-key');
  });

  it('a key the server refuses is not called "--api-key" when none was given', async () => {
    const run = await cli(['pods', 'list'], { HOME: home(), RUNPOD_API_KEY: 'rpa_not_known_here' });
    expect(run.code).toBe(3);
    expect(run.stderr).not.toContain('--api-key');
    expect(run.stderr).not.toContain('rpa_not_known_here');
  });

  it.each([
    [['--profile', 'work'], undefined, /--profile work: cannot read ~\/\.runpod\/config\.toml \(no such file\)/],
    [['--profile', 'work'], `[default]\napi_key = "${KEY}"\n`, /--profile work: ~\/\.runpod\/config\.toml has no \[work\] profile with an api_key/],
    [[], `[default]\napi_key = "${SECRET}`, /~\/\.runpod\/config\.toml is not valid TOML at line 2, column \d+\n/],
    [[], '', /no API key: set RUNPOD_API_KEY, or pipe it to --api-key -, or try --emulator/],
  ] as Array<[string[], string | undefined, RegExp]>)('%j with %j is a usage error', async (args, config, stderr) => {
    const run = await cli(['pods', 'list', ...args], { HOME: home(config) });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(stderr);
    expect(run.stderr).not.toContain(SECRET);
  });
});

describe('~/.runpod/config.toml is read only when it is a regular file of at most 64 KB', () => {
  /** A HOME whose ~/.runpod/config.toml is made by `make` (given its path). */
  function homeWith(make: (path: string) => void): string {
    const dir = home();
    mkdirSync(join(dir, '.runpod'));
    make(join(dir, '.runpod', 'config.toml'));
    return dir;
  }

  // Before: a FIFO held the CLI for ever (SIGTERM did not end it), /dev/zero took seconds of reading.
  it.each([
    ['a FIFO', (path: string) => execFileSync('mkfifo', [path]), /is a FIFO \(named pipe\), not a regular file: not read/],
    ['a symlink to /dev/zero', (path: string) => symlinkSync('/dev/zero', path), /is a device, not a regular file: not read/],
    ['a directory', (path: string) => mkdirSync(path), /is a directory, not a regular file: not read/],
    ['a 65 KB file', (path: string) => writeFileSync(path, `[default]\napi_key = "${KEY}"\n#${'x'.repeat(65 * 1024)}\n`), /is over 64 KB, too large for a profile file: not read/],
  ] as Array<[string, (path: string) => void, RegExp]>)('%s is a usage error naming the file and why', async (_kind, make, why) => {
    for (const args of [[], ['--profile', 'default']]) {
      const dir = homeWith(make);
      const run = await cli(['pods', 'list', ...args], { HOME: dir });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(why);
      expect(run.stderr).toContain('~/.runpod/config.toml');
      expect(run.stderr).toContain(join(dir, '.runpod', 'config.toml'));
    }
  });

  it('a symlink to a regular profile file is followed (dotfile managers link them)', async () => {
    const target = join(home(`[default]\napi_key = "${OTHER}"\n`), '.runpod', 'config.toml');
    expect(await account(await cli(['pods', 'list', '--json'], { HOME: homeWith((path) => symlinkSync(target, path)) }))).toBe('OTHER');
  });

  it('a file of exactly 64 KB is read', async () => {
    const head = `[default]\napi_key = "${OTHER}"\n#`;
    const config = `${head}${'x'.repeat(64 * 1024 - head.length - 1)}\n`;
    expect(Buffer.byteLength(config)).toBe(64 * 1024);
    expect(await account(await cli(['pods', 'list', '--json'], { HOME: home(config) }))).toBe('OTHER');
  });
});
