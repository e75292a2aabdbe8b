import { Hono } from 'hono';
import type { EmulatorEnv } from '../rest-routes.js';
import { readContractBody } from './contract.js';
import { accountOf, type RestV2Deps } from './context.js';
import { findPod, podStatus } from './pods.js';
import { problem } from './problem.js';
import { containerEnv } from './secrets.js';

/** What a command run by `POST /v2/pods/{id}/exec` sees: its pod, the container's env (secrets resolved) and its working directory. */
export interface ExecContext {
  readonly podId: string;
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
}

export interface ExecResult {
  exitCode: number;
  stdout?: string | undefined;
  stderr?: string | undefined;
}

/** One program: its arguments (argv without the program) in, its exit code and output out. */
export type ExecCommand = (args: readonly string[], context: ExecContext) => ExecResult | Promise<ExecResult>;

const envLines = (env: Readonly<Record<string, string>>) => Object.entries(env).map(([k, v]) => `${k}=${v}\n`).join('');

/** A few programs every image has, so a test need define only what it cares about. */
const DEFAULTS: Record<string, ExecCommand> = {
  echo: (args) => ({ exitCode: 0, stdout: `${args.join(' ')}\n` }),
  true: () => ({ exitCode: 0 }),
  false: () => ({ exitCode: 1 }),
  pwd: (_args, { cwd }) => ({ exitCode: 0, stdout: `${cwd}\n` }),
  env: (_args, { env }) => ({ exitCode: 0, stdout: envLines(env) }),
  printenv: (args, { env }) => {
    if (args.length === 0) return { exitCode: 0, stdout: envLines(env) };
    const found = args.filter((name) => Object.hasOwn(env, name));
    return { exitCode: found.length === args.length ? 0 : 1, stdout: found.map((name) => `${env[name]}\n`).join('') };
  },
};

/** The programs the emulator's pods can run: the defaults, and what a test defines. */
export class ExecTable {
  readonly #commands = new Map<string, ExecCommand>(Object.entries(DEFAULTS));

  /** Defines (or replaces) the program `name` (argv[0]) for every pod. */
  define(name: string, command: ExecCommand): void {
    this.#commands.set(name, command);
  }

  async run(argv: readonly string[], context: ExecContext): Promise<{ exitCode: number; stdout: string; stderr: string }> {
    const [program = '', ...args] = argv;
    const command = this.#commands.get(program);
    // Run without a shell, as the platform does: an unknown program is exec's "not found", 127.
    if (!command) return { exitCode: 127, stdout: '', stderr: `exec: "${program}": executable file not found in $PATH\n` };
    const result = await command(args, context);
    return { exitCode: result.exitCode, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
  }
}

export function execRoutes(deps: RestV2Deps): Hono<EmulatorEnv> {
  const app = new Hono<EmulatorEnv>();
  app.post('/pods/:id/exec', async (c) => {
    const pod = findPod(deps, c);
    const body = await readContractBody<{ command: string[]; timeoutSeconds?: number; cwd?: string }>(c.req, 'ExecPodRequest');
    const status = podStatus(deps.platform, pod);
    if (status !== 'RUNNING') throw problem(409, `Pod ${pod.id} is ${status}; commands run only in a RUNNING pod.`);
    return c.json(await deps.exec.run(body.command, { podId: pod.id, env: containerEnv(accountOf(c), pod.env), cwd: body.cwd ?? '/' }));
  });
  return app;
}
