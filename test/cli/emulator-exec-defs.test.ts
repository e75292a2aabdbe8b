import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createRunpodClient } from '../../src/index.js';
import { serveEmulatorCli } from './served-emulator.js';

// `runpod-gql emulator --exec-defs FILE.json`: programs for `pods exec` on a served emulator, each a
// fixed answer (data, never code), beside the common set.
const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'runpod-gql-exec-defs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

const refused = (args: string[]) =>
  new Promise<{ code: number; stderr: string }>((resolve) =>
    execFile(process.execPath, ['dist/cli/main.js', 'emulator', '--port', '0', ...args], { cwd: root, timeout: 30_000 }, (err, _out, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr })),
  );

describe('emulator --exec-defs', () => {
  it('a served emulator runs the defined programs, also from sh -c, and still the common ones', async () => {
    const defs = file('defs.json', JSON.stringify({ nvcc: { stdout: 'Cuda compilation tools, release 12.4, V12.4.131\n' }, 'train.py': { stderr: 'CUDA out of memory\n', exitCode: 1 } }));
    const { info: served, stop } = await serveEmulatorCli(['--exec-defs', defs]);
    try {
      expect(served.execDefined).toEqual(['nvcc', 'train.py']);
      const rp = createRunpodClient({ apiKey: served.apiKey, graphqlUrl: served.graphqlUrl, restUrl: served.restUrl, serverlessUrl: served.serverlessUrl });
      const pod = await rp.rest.pods.create({ name: 'p', image: 'img', gpu: { id: 'NVIDIA RTX A4000' } });
      await rp.pods.waitUntilReady(pod.id, { pollIntervalMs: 100, requirePorts: false });
      expect(await rp.rest.pods.exec(pod.id, { command: ['nvcc', '--version'] })).toEqual({ exitCode: 0, stdout: 'Cuda compilation tools, release 12.4, V12.4.131\n', stderr: '' });
      expect(await rp.rest.pods.exec(pod.id, { command: ['sh', '-c', 'train.py || echo failed'] })).toEqual({ exitCode: 0, stdout: 'failed\n', stderr: 'CUDA out of memory\n' });
      expect((await rp.rest.pods.exec(pod.id, { command: ['nvidia-smi', '-L'] })).stdout).toMatch(/^GPU 0: NVIDIA RTX A4000/);
    } finally {
      expect(await stop()).toBe(0);
    }
  }, 60_000);

  it.each([
    ['no such file', () => join(dir, 'missing.json'), /--exec-defs .*missing\.json: cannot read the file \(no such file\)/],
    ['not JSON', () => file('bad.json', '{ nvcc: '), /--exec-defs .*bad\.json: not JSON/],
    ['a field it does not know', () => file('extra.json', '{"nvcc":{"stdout":"x","run":"rm -rf /"}}'), /--exec-defs .*extra\.json: .*at nvcc/],
    ['an exit code past 255', () => file('code.json', '{"nvcc":{"exitCode":300}}'), /--exec-defs .*code\.json: .*at nvcc\.exitCode/],
    ['a name that is no program', () => file('name.json', '{"a b":{}}'), /--exec-defs .*name\.json: "a b" is not a program name/],
  ] as Array<[string, () => string, RegExp]>)('%s is a usage error naming the file (exit 2)', async (_case, path, message) => {
    const run = await refused(['--exec-defs', path()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});
