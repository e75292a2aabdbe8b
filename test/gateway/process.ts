import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = 'dist/cli/main.js';

export interface GatewayProcess {
  readonly child: ChildProcess;
  /** The one line printed once ready. */
  readonly line: string;
  readonly graphqlUrl: string;
  /** What it printed on stderr so far (warnings, such as Redis turning local). */
  stderr(): string;
  /** What it printed on stdout so far (its line, then the access log). */
  stdout(): string;
  /** Stops it by its PID (SIGTERM) and waits for the exit. */
  stop(): Promise<number | null>;
  /** Its exit code, once it exits (after a signal the test sent itself). */
  exited(): Promise<number | null>;
}

/** `runpod-gql gateway ARGS` from the built package; resolves once it prints its line, rejects with its stderr if it exits first. */
export function startGatewayProcess(args: string[], env: Record<string, string>): Promise<GatewayProcess> {
  const child = spawn(process.execPath, [BIN, 'gateway', ...args], { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const newline = stdout.indexOf('\n');
      if (newline < 0) return;
      const line = stdout.slice(0, newline);
      const url = /^runpod-gql gateway: listening on (http:\/\/\S+\/graphql)$/.exec(line)?.[1];
      if (!url) return reject(new Error(`unexpected first line: ${line}`));
      resolve({
        child,
        line,
        graphqlUrl: url,
        stderr: () => stderr,
        stdout: () => stdout,
        exited: () => exited,
        stop: () => {
          if (child.exitCode === null) child.kill('SIGTERM');
          return exited;
        },
      });
    });
    void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
}

/** Runs `runpod-gql gateway ARGS` expecting it to refuse: its exit code and stderr. */
export function refusedGateway(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, [BIN, 'gateway', ...args], { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGTERM'), 20_000);
  return new Promise((resolve) => child.once('exit', (code) => {
    clearTimeout(timer);
    resolve({ code, stderr, stdout });
  }));
}
