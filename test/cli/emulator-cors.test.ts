import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serveEmulatorCli } from './served-emulator.js';

// `runpod-gql emulator --cors-origin ORIGIN` (repeatable): pages from those origins may call it, others not.
const root = fileURLToPath(new URL('../../', import.meta.url));

describe('emulator --cors-origin', () => {
  it('answers a preflight from an allowed origin, and not from another', async () => {
    const { info, stop } = await serveEmulatorCli(['--cors-origin', 'http://app.example:5173', '--cors-origin', 'https://ui.example']);
    try {
      const { graphqlUrl } = info;
      const preflight = (origin: string) =>
        fetch(graphqlUrl, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } }).then((r) => r.headers.get('access-control-allow-origin'));
      expect(await preflight('http://app.example:5173')).toBe('http://app.example:5173');
      expect(await preflight('https://ui.example')).toBe('https://ui.example');
      expect(await preflight('https://evil.example')).toBeNull();
      // The list replaces the default (loopback origins).
      expect(await preflight('http://localhost:3000')).toBeNull();
    } finally {
      expect(await stop()).toBe(0);
    }
  }, 30_000);

  it.each([['localhost:5173'], ['http://app.example:5173/path'], ['ftp://app.example']])('refuses %s as an origin (exit 2)', async (origin) => {
    const run = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(process.execPath, ['dist/cli/main.js', 'emulator', '--port', '0', '--cors-origin', origin], { cwd: root, timeout: 30_000 }, (err, _out, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr })),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/option '--cors-origin <origin>' argument .* is invalid\. Expected an origin such as http:\/\/localhost:5173/);
  });
});
