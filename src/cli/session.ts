// Client creation: the key and URLs from flags and the environment, or an in-process emulator.
import type { Command } from 'commander';
import { createRunpodClient, type RunpodClient } from '../index.js';
import type { Emulator } from '../emulator/index.js';
import type { TransportChangeEvent } from '../transport/transport-choice.js';
import { urlProblem } from '../transport/options.js';
import { UsageError } from './errors.js';
import type { CommandOptions, GlobalOptions } from './options.js';
import { whereOf } from './program.js';

/** What an action works with. */
export interface Session {
  rp: RunpodClient;
  /** Set with `--emulator`: the in-process emulator, disposed when the action ends. */
  emulator?: Emulator;
  /** The command and the ids the user typed (`runpod-gql pods wait abc`), for messages. */
  where: string;
}

const URL_VARIABLES = { RUNPOD_GRAPHQL_URL: 'graphqlUrl', RUNPOD_REST_URL: 'restUrl', RUNPOD_SERVERLESS_URL: 'serverlessUrl' } as const;

/** One line on stderr when rp.pods or rp.gpuTypes leaves GraphQL (instead of Node's warning). */
const transportNote = (event: TransportChangeEvent) =>
  console.error(`note: GraphQL ${event.reason === 'retired' ? 'is retired (410 Gone)' : 'is rate-limited'}; ${event.surface} went on over REST v2 (--transport rest skips GraphQL)`);

async function openSession(options: GlobalOptions, where: string): Promise<Session> {
  if (options.emulator) {
    // Loaded only when used: the emulator (Hono, graphql-js) would slow every other command's start.
    const { createEmulator } = await import('../emulator/index.js');
    const emulator = createEmulator({ podStartupMs: 500 });
    return { rp: createRunpodClient({ ...emulator.clientOptions(), podsTransport: options.transport, onTransportChange: transportNote }), emulator, where };
  }
  const apiKey = options.apiKey === '-' ? await keyFromStdin() : (options.apiKey ?? process.env.RUNPOD_API_KEY);
  if (!apiKey) throw new UsageError('no API key: set RUNPOD_API_KEY, or pipe it to --api-key -, or try --emulator');
  const urls: Partial<Record<(typeof URL_VARIABLES)[keyof typeof URL_VARIABLES], string>> = {};
  for (const [name, option] of Object.entries(URL_VARIABLES)) {
    const value = process.env[name];
    if (!value) continue;
    // The library's own check (the same message as `createRunpodClient({ ${option}: … })`), named by the variable.
    const problem = urlProblem(value, false);
    if (problem) throw new UsageError(`configuration error: ${name} (${option}) ${problem}`);
    urls[option] = value;
  }
  return { rp: createRunpodClient({ apiKey, ...urls, podsTransport: options.transport, onTransportChange: transportNote }), where };
}

/** `--api-key -`: the key is the first line of stdin, so it never shows in the process list or the shell's history. */
async function keyFromStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('API key (then Enter): ');
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  const key = text.split(/\r?\n/)[0]!.trim();
  if (!key) throw new UsageError('--api-key -: no key on stdin (pipe it in, e.g. --api-key - < key-file)');
  return key;
}

/**
 * Wraps an action that talks to RunPod: opens the client, runs, and ends the in-process emulator
 * so the process can exit. The action gets the session, the options, then its operands.
 */
export function withClient<Args extends unknown[]>(run: (session: Session, options: CommandOptions, ...args: Args) => Promise<void>) {
  return async function (this: Command, ...args: unknown[]): Promise<void> {
    const operands = args.slice(0, this.registeredArguments.length);
    const options = this.optsWithGlobals<CommandOptions>();
    const session = await openSession(options, whereOf(this));
    try {
      await run(session, options, ...(operands as Args));
    } finally {
      session.emulator?.dispose();
    }
  };
}
