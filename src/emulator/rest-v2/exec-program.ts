// What a program of an emulated pod is: what it sees (its pod, env, cwd) and what it answers.
// Below the table (exec-table.ts) and the common programs (exec-commands.ts), which both read it.

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
