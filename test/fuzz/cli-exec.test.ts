import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exitStatusOf } from '../../src/cli/commands/pod-container.js';
import { COMMON_COMMANDS } from '../../src/emulator/rest-v2/exec-commands.js';
import { ExecTable, type ExecPodFacts } from '../../src/emulator/rest-v2/exec.js';
import { counted, params } from './harness.js';

// `pods exec` exits with its command's exit code: whatever the server answers, the CLI's status is
// one a shell can see (0–255), and it is 0 only when the command's code was 0.
describe('pods exec exit status', () => {
  it('property: any answered exit code maps to 0–255, and to 0 only for 0', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.integer({ min: -1, max: 512 }), fc.double()), (code) => {
        const status = exitStatusOf(code);
        expect(Number.isInteger(status) && status >= 0 && status <= 255).toBe(true);
        expect(status === 0).toBe(code === 0);
        if (Number.isInteger(code) && code >= 0 && code <= 255) expect(status).toBe(code);
      }),
      params(500),
    );
  });
});

// The emulator's `sh -c` reads whatever a user types: any text ends in an exit code a shell can see
// (0–255) with text on both streams, never a thrown error, and text outside the emulated subset
// (pipes, redirections, substitutions) is refused with exit 2, never run as something else.
describe("the emulator's sh -c and common programs", () => {
  const facts: ExecPodFacts = {
    id: 'pod1',
    name: 'p',
    imageName: 'img',
    gpuTypeId: 'NVIDIA RTX A4000',
    gpuCount: 1,
    gpuMemoryInGb: 16,
    cudaVersion: '12.4',
    vcpuCount: 8,
    memoryInGb: 62,
    containerDiskInGb: 50,
    volumeInGb: 20,
    volumeMountPath: '/workspace',
    networkVolume: false,
    files: { '/workspace/a.txt': 'a\n' },
    startedAt: 0,
    now: 0,
  };
  const shellText = fc.oneof(
    fc.string({ maxLength: 80 }),
    fc.array(fc.constantFrom('echo', 'ls', 'cat', 'cd', '/workspace', 'a.txt', '&&', '||', ';', '|', '>', "'", '"', '$HOME', '${X}', '$(', '`', 'false', 'true', 'exit', '3', 'sh', '-c', 'nope', '\\', '#', '\n'), { maxLength: 12 }).map((w) => w.join(' ')),
  );

  it('property: any script ends with 0–255 and strings; pipes, redirections and substitutions are exit 2', async () => {
    const table = new ExecTable();
    await fc.assert(
      fc.asyncProperty(
        shellText,
        fc.constantFrom('sh', 'bash'),
        counted('exec-shell', async (script, shell) => {
          const result = await table.run([shell, '-c', script], { podId: 'pod1', env: { X: 'x' }, cwd: '/', pod: facts });
          expect(Number.isInteger(result.exitCode) && result.exitCode >= 0 && result.exitCode <= 255).toBe(true);
          expect(typeof result.stdout === 'string' && typeof result.stderr === 'string').toBe(true);
          if (result.stderr.includes('not emulated')) expect(result.exitCode).toBe(2);
        }),
      ),
      params(300),
    );
  });

  it('property: every common program answers any arguments with 0–255 and strings', async () => {
    const table = new ExecTable();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(COMMON_COMMANDS)),
        fc.array(fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('-l', '-a', '-L', '-h', '--query-gpu=name', '--format=csv', '-c', '/', '..', '/workspace')), { maxLength: 4 }),
        counted('exec-programs', async (program, args) => {
          const result = await table.run([program, ...args], { podId: 'pod1', env: {}, cwd: '/workspace', pod: facts });
          expect(Number.isInteger(result.exitCode) && result.exitCode >= 0 && result.exitCode <= 255).toBe(true);
          expect(typeof result.stdout === 'string' && typeof result.stderr === 'string').toBe(true);
        }),
      ),
      params(300),
    );
  });
});
