// Client creation: the key and URLs from flags and the environment, or an in-process emulator.
import type { Command } from 'commander';
import { createRunpodClient, ValidationError, type RunpodClient, type RunpodClientOptions } from '../index.js';
import type { Emulator } from '../emulator/index.js';
import type { TransportChangeEvent } from '../transport/transport-choice.js';
import { urlProblem } from '../transport/options.js';
import { UsageError } from './errors.js';
import { safeText } from './output.js';
import { transportOf, type CommandOptions, type GlobalOptions } from './options.js';
import { whereOf } from './program.js';
import { whileRunning } from './signals.js';
import { keyFromProfile, PROFILE_FILE, trimKey, type KeyFrom } from './profile.js';
import { proxyFromEnv } from './proxy.js';

/** What an action works with. */
export interface Session {
  rp: RunpodClient;
  /** Set with `--emulator`: the in-process emulator, disposed when the action ends. */
  emulator?: Emulator;
  /** The command and the ids the user typed (`runpod-gql pods wait abc`), for messages. */
  where: string;
  /** Lets go of what the session holds beyond the client (the proxy agent's sockets). */
  close?: () => Promise<void>;
}

const URL_VARIABLES = { RUNPOD_GRAPHQL_URL: 'graphqlUrl', RUNPOD_REST_URL: 'restUrl', RUNPOD_SERVERLESS_URL: 'serverlessUrl' } as const;

/** The client's log lines, on stderr (stdout holds the command's output), controls escaped. */
const stderrLogger = {
  error: (message: string) => console.error(safeText(message)),
  warn: (message: string) => console.error(safeText(message)),
  info: (message: string) => console.error(safeText(message)),
  debug: (message: string) => console.error(safeText(message)),
};

/** `--debug`, `--verbose`, else the library's own default (`RUNPOD_LOG`, else warn). */
const logOptions = (options: GlobalOptions) => ({ logger: stderrLogger, logLevel: options.debug ? ('debug' as const) : options.verbose ? ('info' as const) : undefined });

/** One line on stderr when rp.pods or rp.gpuTypes leaves GraphQL (instead of Node's warning). */
const transportNote = (event: TransportChangeEvent) =>
  console.error(`note: GraphQL ${event.reason === 'retired' ? 'is retired (410 Gone)' : 'is rate-limited'}; ${event.surface} went on over REST v2 (--transport rest skips GraphQL)`);

async function openSession(options: GlobalOptions, where: string): Promise<Session> {
  if (options.emulator) {
    // Loaded only when used: the emulator (Hono, graphql-js) would slow every other command's start.
    const { createEmulator } = await import('../emulator/index.js');
    const emulator = createEmulator({ podStartupMs: 500 });
    return { rp: createRunpodClient({ ...emulator.clientOptions(), ...logOptions(options), podsTransport: transportOf(options.transport), onTransportChange: transportNote }), emulator, where };
  }
  const from = await apiKeyOf(options);
  if (!from) throw new UsageError(`no API key: set RUNPOD_API_KEY, or pipe it to --api-key -, or try --emulator (or keep it in a profile: [default] api_key = "…" in ${PROFILE_FILE})`);
  const urls: Partial<Record<(typeof URL_VARIABLES)[keyof typeof URL_VARIABLES], string>> = {};
  for (const [name, option] of Object.entries(URL_VARIABLES)) {
    const value = process.env[name];
    if (!value) continue;
    // The library's own check (the same message as `createRunpodClient({ ${option}: … })`), named by the variable.
    const problem = urlProblem(value, false);
    if (problem) throw new UsageError(`configuration error: ${name} (${option}) ${problem}`);
    urls[option] = value;
  }
  // HTTP_PROXY, HTTPS_PROXY and NO_PROXY, as gh and npm honour them (not for --emulator: it is in process).
  const proxy = await proxyFromEnv();
  const rp = clientFor(from, { ...urls, ...logOptions(options), podsTransport: transportOf(options.transport), onTransportChange: transportNote, fetchOptions: proxy?.fetchOptions });
  return { rp, where, close: proxy?.close };
}

/** The key and its source: `--api-key` (or `-`, stdin), then `--profile`, then RUNPOD_API_KEY, then the default profile. */
async function apiKeyOf(options: GlobalOptions): Promise<KeyFrom | undefined> {
  if (options.apiKey === '-') return { key: await keyFromStdin(), source: '--api-key -' };
  if (options.apiKey !== undefined) return { key: options.apiKey, source: '--api-key' };
  if (options.profile !== undefined) return keyFromProfile(options.profile);
  const env = trimKey(process.env.RUNPOD_API_KEY ?? '');
  if (env) return { key: env, source: 'RUNPOD_API_KEY' };
  return keyFromProfile(undefined);
}

/** The client, with a key the library refuses named by where it came from (never echoed). */
function clientFor(from: KeyFrom, options: Omit<RunpodClientOptions, 'apiKey'>): RunpodClient {
  try {
    return createRunpodClient({ ...options, apiKey: from.key });
  } catch (err) {
    if (err instanceof ValidationError && err.field === 'apiKey') {
      throw new UsageError(`the API key from ${from.source} is refused: ${err.message.replace(/^apiKey: /, '')}`);
    }
    throw err;
  }
}

/** `--api-key -`: the key is the first line of stdin, so it never shows in the process list or the shell's history. */
async function keyFromStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('API key (then Enter): ');
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  const key = trimKey(text.split(/\r?\n/)[0]!);
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
    const where = whereOf(this);
    // SIGINT and SIGTERM end every command the same way (exit 130 or 143, the command named); a
    // command that starts or waits for something says more (see signals.ts).
    const offSignal = whileRunning(where);
    try {
      const session = await openSession(options, where);
      try {
        await run(session, options, ...(operands as Args));
      } finally {
        session.emulator?.dispose();
        await session.close?.();
      }
    } finally {
      offSignal();
    }
  };
}
