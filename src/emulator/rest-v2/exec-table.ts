import { COMMON_COMMANDS } from './exec-commands.js';
import type { ExecCommand, ExecContext, ExecRunContext } from './exec-program.js';

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
