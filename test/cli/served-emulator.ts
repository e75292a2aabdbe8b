import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** What `runpod-gql emulator --json` prints on its first line. */
export interface ServedEmulatorInfo {
  url: string;
  graphqlUrl: string;
  restUrl: string;
  serverlessUrl: string;
  apiKey: string;
  env: Record<string, string>;
  execDefined?: string[];
}

/**
 * The built CLI's `emulator --port 0 --json …extra` as a child process, once it has printed its
 * URLs. `stop()` sends SIGTERM to that child (by its handle) and answers its exit code.
 */
export async function serveEmulatorCli(extra: string[]): Promise<{ info: ServedEmulatorInfo; stop(): Promise<number | null> }> {
  const server = spawn(process.execPath, ['dist/cli/main.js', 'emulator', '--port', '0', '--json', ...extra], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
  const stop = async () => {
    server.kill('SIGTERM');
    return exited;
  };
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
      });
      server.on('exit', () => reject(new Error(`emulator exited: ${out}`)));
    });
    return { info: JSON.parse(line) as ServedEmulatorInfo, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
