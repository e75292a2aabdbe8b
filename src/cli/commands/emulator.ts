// `runpod-gql emulator`: serves the local emulator for other programs until interrupted.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { RunpodError } from '../../index.js';
import type { Emulator } from '../../emulator/index.js';
import { UsageError } from '../errors.js';
import type { CommandGroup } from '../program.js';
import { corsOrigin, port, type GlobalOptions } from '../options.js';

interface EmulatorOptions extends GlobalOptions {
  port: number;
  host: string;
  corsOrigin?: string[];
  execDefs?: string;
  graphqlRetired?: boolean;
}

/** The largest `--exec-defs` file read: fixed outputs for a few programs fit in far less. */
const MAX_EXEC_DEFS_BYTES = 1024 * 1024;

/**
 * `--exec-defs FILE.json`: programs for the served emulator's pods, each a fixed answer whatever its
 * arguments, e.g. `{ "nvcc": { "stdout": "Cuda compilation tools, release 12.4\n" } }`. Data, not
 * code: a file that anyone can hand the emulator runs nothing in its process.
 */
async function loadExecDefinitions(emulator: Emulator, file: string): Promise<string[]> {
  const { z } = await import('zod');
  const definitions = z.record(
    z.string(),
    z.strictObject({ stdout: z.string().optional(), stderr: z.string().optional(), exitCode: z.int().min(0).max(255).optional() }),
  );
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`--exec-defs ${file}: cannot read the file (${code === 'ENOENT' ? 'no such file' : (code ?? 'unreadable')})`);
  }
  if (text.length > MAX_EXEC_DEFS_BYTES) throw new UsageError(`--exec-defs ${file}: over ${MAX_EXEC_DEFS_BYTES / 1024} KB`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--exec-defs ${file}: not JSON (${(err as Error).message})`);
  }
  const parsed = definitions.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.length ? ` at ${issue.path.map(String).join('.')}` : '';
    throw new UsageError(`--exec-defs ${file}: ${issue.message}${at} (expected { "program": { "stdout"?: "…", "stderr"?: "…", "exitCode"?: 0–255 } })`);
  }
  const badName = Object.keys(parsed.data).find((name) => !/^[\w.+-]+$/.test(name));
  if (badName !== undefined) throw new UsageError(`--exec-defs ${file}: ${JSON.stringify(badName)} is not a program name (letters, digits, _ . + -)`);
  for (const [name, { stdout, stderr, exitCode = 0 }] of Object.entries(parsed.data)) emulator.exec.define(name, () => ({ exitCode, stdout, stderr }));
  return Object.keys(parsed.data);
}

export const emulator: CommandGroup = (program) => {
  program
    .command('emulator')
    .description('serve the local emulator for other programs until interrupted')
    .option('--port <n>', 'port (0 picks a free one)', port, 8787)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--cors-origin <origin>', 'let pages from this origin call it, e.g. http://localhost:5173 (repeatable; * for any; default: loopback origins)', corsOrigin)
    .option('--exec-defs <file>', 'programs for pods exec, from a JSON file of fixed outputs: { "nvcc": { "stdout": "…", "exitCode": 0 } }')
    .option('--graphql-retired', 'retire GraphQL as production will: every /graphql request answers 410 Gone (REST v2 and serverless keep working)')
    .action(async function (this: Command) {
      await serveEmulator(this.optsWithGlobals<EmulatorOptions>());
    });
};

async function serveEmulator(options: EmulatorOptions): Promise<void> {
  const [{ createEmulator }, { listen }] = await Promise.all([import('../../emulator/index.js'), import('../../emulator/node.js')]);
  const origins = options.corsOrigin;
  const emulator = createEmulator({ corsOrigins: origins?.includes('*') ? '*' : origins, graphqlRetired: options.graphqlRetired === true });
  let defined: string[] = [];
  try {
    if (options.execDefs !== undefined) defined = await loadExecDefinitions(emulator, options.execDefs);
  } catch (err) {
    emulator.dispose();
    throw err;
  }
  const server = await listen(emulator, { port: options.port, host: options.host }).catch((err: NodeJS.ErrnoException) => {
    emulator.dispose();
    throw new RunpodError(`cannot serve on ${options.host}:${options.port}: ${err.code === 'EADDRINUSE' ? 'the port is in use' : err.message}`);
  });
  const { apiKey } = server.clientOptions();
  const env = { RUNPOD_API_KEY: apiKey, RUNPOD_GRAPHQL_URL: server.graphqlUrl, RUNPOD_REST_URL: server.restUrl, RUNPOD_SERVERLESS_URL: server.serverlessUrl };
  if (options.json) {
    console.log(JSON.stringify({ url: server.url, graphqlUrl: server.graphqlUrl, restUrl: server.restUrl, serverlessUrl: server.serverlessUrl, graphqlRetired: options.graphqlRetired === true, apiKey, env, ...(defined.length > 0 && { execDefined: defined }) }));
  } else {
    console.log(`runpod-gql emulator listening on ${server.url}
  graphqlUrl     ${server.graphqlUrl}${options.graphqlRetired ? '   (retired: answers 410 Gone)' : ''}
  restUrl        ${server.restUrl}
  serverlessUrl  ${server.serverlessUrl}   (public endpoints: echo, sleep, fail, stream)
  apiKey         ${apiKey}${defined.length > 0 ? `\n  pods exec      also runs ${defined.join(', ')} (--exec-defs)` : ''}

  createRunpodClient({ apiKey: '${apiKey}', graphqlUrl: '${server.graphqlUrl}', restUrl: '${server.restUrl}', serverlessUrl: '${server.serverlessUrl}' })
  or, for later runpod-gql commands in another shell:
  export ${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')}
Press Ctrl+C to stop.`);
  }
  await new Promise<void>((resolve) => {
    const stop = () => void server.close().then(resolve);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
