// Starts Debian's `redis-server` for a test or the bench, on 127.0.0.1 and a free port, with no
// persistence, and stops it afterwards. Without `redis-server` on PATH, `redisServerPath` is
// undefined and the callers skip (tests) or say so (bench).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, Socket } from 'node:net';

export const redisServerPath: string | undefined = (() => {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : undefined;
})();

/** A free port on 127.0.0.1: bound to port 0, read, closed (redis-server cannot take port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops the server and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: nothing is saved). */
  restart(): Promise<void>;
}

export async function startRedisServer(port?: number): Promise<RedisServer> {
  if (!redisServerPath) throw new Error('redis-server is not installed');
  const chosen = port ?? (await freePort());
  let child: ChildProcess | undefined;
  const launch = async () => {
    const proc = spawn(redisServerPath!, ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], {
      stdio: 'ignore',
    });
    child = proc;
    const exited = new Promise<never>((_, reject) => proc.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`))));
    exited.catch(() => undefined);
    for (let i = 0; i < 100; i++) {
      if (await Promise.race([answers(chosen), exited])) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    proc.kill('SIGKILL');
    throw new Error('redis-server did not answer within 5 s');
  };
  const stop = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const gone = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await gone;
  };
  await launch();
  return { port: chosen, url: `redis://127.0.0.1:${chosen}`, stop, restart: async () => (await stop(), await launch()) };
}
