import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('npm run demo', () => {
  it('walks through the whole session against the emulator and exits 0', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/demo.ts'], { cwd: root, timeout: 60_000, env: { ...process.env, RUNPOD_API_KEY: '' } });
    for (const heading of ['1. Where can I get a GPU', '2. Deploy a pod', '3. Stop, start, update', '4. Create a template', '5. Read billing', '6. Serverless jobs', '7. Your own endpoint', '8. A load-balanced endpoint', 'Done.']) {
      expect(stdout).toContain(heading);
    }
    expect(stdout).toMatch(/RTX 4090\s+24 GB\s+0\.69\s+High/);
    expect(stdout).toContain('answered over          GraphQL');
    expect(stdout).toContain('files after stop       {"containerDisk":{},"volume":{"/workspace/checkpoint.pt":"weights"}}');
    expect(stdout).toContain('stream                 Once upon a time');
    expect(stdout).toMatch(/cancel\s+JobCancelledError for /);
    // One worker: the three jobs queue behind its cold start and each other.
    expect(stdout).toMatch(/status after \/run\s+(IN_QUEUE|IN_PROGRESS), IN_QUEUE, IN_QUEUE/);
    expect(stdout).toMatch(/job 3\s+waited \d+ ms/);
    expect(stdout).toContain('POST /v1/chat          {"reply":"you said: hi"}');
  }, 60_000);

  it('-- --transport rest runs the same session with pods and GPU types on REST v2; a bad value is a usage error', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/demo.ts', '--transport', 'rest'], { cwd: root, timeout: 60_000, env: { ...process.env, RUNPOD_API_KEY: '' } });
    expect(stdout).toContain('pods and GPU types over REST v2');
    expect(stdout).toContain('answered over          REST v2');
    for (const heading of ['2. Deploy a pod', '3. Stop, start, update', '6. Serverless jobs', 'Done.']) expect(stdout).toContain(heading);
    expect(stdout).toMatch(/RTX 4090\s+24 GB\s+0\.69\s+High/);
    const bad = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/demo.ts', '--transport', 'v2'], { cwd: root, timeout: 60_000 }).catch((err: { code: number; stderr: string }) => err);
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('usage: npm run demo [-- --transport auto|graphql|rest]') });
  }, 60_000);
});
