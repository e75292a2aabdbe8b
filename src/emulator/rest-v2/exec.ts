import { Hono } from 'hono';
import type { EmulatorEnv } from '../rest-routes.js';
import { readContractBody } from './contract.js';
import type { Account, EmulatedPod } from '../platform.js';
import { podMemoryInGb, podVcpuCount } from '../views.js';
import { accountOf, extrasOf, type RestV2Deps } from './context.js';
import { findPod, podStatus } from './pods.js';
import { problem } from './problem.js';
import { containerEnv } from './secrets.js';
import { COMMON_COMMANDS } from './exec-commands.js';

/** What an emulated pod is, as its programs see it (`nvidia-smi`, `nproc`, `df`, `ls`). */
export interface ExecPodFacts {
  readonly id: string;
  readonly name: string;
  readonly imageName: string;
  /** The GPU type id, which is also the name nvidia-smi prints; undefined for a CPU pod. */
  readonly gpuTypeId: string | undefined;
  /** GPUs held now (0 for a pod started without GPUs). */
  readonly gpuCount: number;
  readonly gpuMemoryInGb: number;
  /** The host's CUDA version; undefined for a CPU pod. */
  readonly cudaVersion: string | undefined;
  readonly vcpuCount: number;
  readonly memoryInGb: number;
  readonly containerDiskInGb: number;
  readonly volumeInGb: number;
  readonly volumeMountPath: string;
  readonly networkVolume: boolean;
  /** The files written into the pod (`emulator.inspect.writeFile`), by absolute path, on either disk. */
  readonly files: Readonly<Record<string, string>>;
  /** When the container last started, and now, on the emulator clock (ms since the epoch). */
  readonly startedAt: number;
  readonly now: number;
}

/** What a command run by `POST /v2/pods/{id}/exec` sees: its pod, the container's env (secrets resolved) and its working directory. */
export interface ExecContext {
  readonly podId: string;
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly pod: ExecPodFacts;
  /** The names of every program the pod has now (the common set and what was defined). */
  programs(): string[];
  /** Runs another program of the table in the same pod (what `sh -c` does), in `cwd`. */
  run(argv: readonly string[], cwd?: string): Promise<{ exitCode: number; stdout: string; stderr: string }>;
}

export interface ExecResult {
  exitCode: number;
  stdout?: string | undefined;
  stderr?: string | undefined;
}

/** One program: its arguments (argv without the program) in, its exit code and output out. */
export type ExecCommand = (args: readonly string[], context: ExecContext) => ExecResult | Promise<ExecResult>;

/** What a program's run needs from the route: everything in the context but what the table adds. */
export type ExecRunContext = Omit<ExecContext, 'programs' | 'run'>;

/** How deep `sh -c 'sh -c …'` may nest before it is refused, so a definition that calls itself ends. */
const MAX_NESTING = 16;

/** The programs the emulator's pods can run: the common set (exec-commands.ts), and what a test defines. */
export class ExecTable {
  readonly #commands = new Map<string, ExecCommand>(Object.entries(COMMON_COMMANDS));

  /** Defines (or replaces) the program `name` (argv[0]) for every pod. */
  define(name: string, command: ExecCommand): void {
    this.#commands.set(name, command);
  }

  async run(argv: readonly string[], context: ExecRunContext, depth = 0): Promise<{ exitCode: number; stdout: string; stderr: string }> {
    const [program = '', ...args] = argv;
    const command = this.#commands.get(program);
    // Run without a shell, as the platform does: an unknown program is exec's "not found", 127.
    if (!command) return { exitCode: 127, stdout: '', stderr: `exec: "${program}": executable file not found in $PATH\n` };
    if (depth > MAX_NESTING) return { exitCode: 126, stdout: '', stderr: `${program}: nested more than ${MAX_NESTING} deep\n` };
    const full: ExecContext = {
      ...context,
      programs: () => [...this.#commands.keys()],
      run: (inner, cwd = context.cwd) => this.run(inner, { ...context, cwd }, depth + 1),
    };
    const result = await command(args, full);
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
    const account = accountOf(c);
    const env = containerEnv(account, pod.env);
    return c.json(await deps.exec.run(body.command, { podId: pod.id, env, cwd: body.cwd ?? '/', pod: podFacts(deps, account, pod) }));
  });
  return app;
}

/** The pod as its programs see it, from the same state the API answers from. */
function podFacts(deps: RestV2Deps, account: Account, pod: EmulatedPod): ExecPodFacts {
  const { platform } = deps;
  const host = platform.host(pod.hostId);
  const gpu = pod.computeType === 'GPU';
  const files = platform.files(account, pod.id);
  const cpu = extrasOf(pod).cpu;
  return {
    id: pod.id,
    name: pod.name,
    imageName: pod.imageName,
    gpuTypeId: gpu ? pod.gpuTypeId : undefined,
    gpuCount: gpu ? pod.gpuCount : 0,
    gpuMemoryInGb: platform.gpuTypes.find((t) => t.id === pod.gpuTypeId)?.memoryInGb ?? 0,
    cudaVersion: gpu ? host.cudaVersion : undefined,
    vcpuCount: cpu?.vcpuCount ?? podVcpuCount(pod, host),
    memoryInGb: cpu?.memory ?? podMemoryInGb(pod, host),
    containerDiskInGb: pod.containerDiskInGb,
    volumeInGb: pod.volumeInGb,
    volumeMountPath: pod.volumeMountPath,
    networkVolume: pod.networkVolumeId !== undefined,
    files: { ...files.containerDisk, ...files.volume },
    startedAt: pod.lastStartedAt,
    now: platform.clock.now(),
  };
}
