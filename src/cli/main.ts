#!/usr/bin/env node
// The `runpod-gql` command line. Exit codes: 0 ok, 1 unexpected, 2 usage (anything refused before
// a request is sent), 3 API error, 4 no capacity.
import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { CapacityUnavailableError, createRunpodClient, NotFoundError, RunpodError, ValidationError, type RunpodClient } from '../index.js';
import type { PodsTransport, TransportChangeEvent } from '../transport/transport-choice.js';
import type { Emulator } from '../emulator/index.js';
import { urlProblem } from '../transport/options.js';
import { formatProgress, printTable, safeJson, safeText } from './output.js';

export const EXIT = { ok: 0, unexpected: 1, usage: 2, api: 3, capacity: 4 } as const;

const EMULATOR_NOTE = (what: string) => `note: with --emulator the ${what} ends with this command; serve \`runpod-gql emulator\` to keep it (see --help).`;

/** A problem with what the user typed or configured, found before anything was sent. */
class UsageError extends Error {}

const URL_VARIABLES = { RUNPOD_GRAPHQL_URL: 'graphqlUrl', RUNPOD_REST_URL: 'restUrl', RUNPOD_SERVERLESS_URL: 'serverlessUrl' } as const;

interface GlobalOptions {
  apiKey?: string;
  emulator?: boolean;
  json?: boolean;
  /** `--transport` of `gpus` and `pods`: which API rp.pods and rp.gpuTypes use. */
  transport?: PodsTransport;
}

function version(): string {
  // dist/cli/main.js and src/cli/main.ts both sit two levels below package.json.
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

// Option parsers: a bad value is a usage error naming the option and the value as typed
// (commander: "option '--timeout <seconds>' argument '-1' is invalid. …"), before anything is sent.
const numberWhere = (ok: (n: number) => boolean, expected: string) => (value: string): number => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('Expected a number.');
  if (!ok(n)) throw new InvalidArgumentError(expected);
  return n;
};
const gpuCount = numberWhere((n) => Number.isSafeInteger(n) && n >= 1, 'Expected a whole number of GPUs, 1 or more.');
const seconds = numberWhere((n) => n > 0, 'Expected a number of seconds above 0.');
const price = numberWhere((n) => n > 0, 'Expected a price in USD per hour above 0.');
const gigabytes = numberWhere((n) => n > 0, 'Expected a number of GB above 0.');
const diskGigabytes = numberWhere((n) => Number.isSafeInteger(n) && n >= 0, 'Expected a whole number of GB, 0 or more.');
const podName = (value: string): string => {
  if (value.trim() === '') throw new InvalidArgumentError('Expected a name that is not empty.');
  return value;
};
const port = (value: string): number => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65_535) throw new InvalidArgumentError('Expected a port number from 0 to 65535.');
  return n;
};
const json = (value: string): unknown => {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new InvalidArgumentError('Expected JSON, e.g. --input \'{"prompt":"hi"}\'.');
  }
};
/** `--transport`, on `gpus` and `pods`: maps to the client's `podsTransport`. */
const transportOption = () =>
  new Option('--transport <mode>', 'API for pods and GPU types: auto (GraphQL, then REST v2 once it is retired), graphql, rest').choices(['auto', 'graphql', 'rest']).default('auto');
const envPair = (pair: string, previous: Record<string, string> = {}): Record<string, string> => {
  const eq = pair.indexOf('=');
  if (eq < 1) throw new InvalidArgumentError('Expected KEY=VALUE.');
  return { ...previous, [pair.slice(0, eq)]: pair.slice(eq + 1) };
};

/** The full command path, e.g. `runpod-gql pods deploy`. */
function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Usage errors are short: the problem, a suggestion when there is one, and which help to read. */
function conventions(command: Command): Command {
  const path = pathOf(command);
  command.showHelpAfterError(`Run '${path} --help' for usage.`);
  command.configureOutput({ outputError: (text, write) => write(safeText(text.replace(/^error: /, `${path}: `))) });
  // A mistyped option is named without its value: `--apikey=rpa_…` must not print the key (into
  // CI logs, say); `-kSECRET` is shown as `-k`.
  // (`unknownOption` is commander's, undeclared in its types.)
  const internal = command as unknown as { unknownOption(flag: string): void };
  const unknownOption = internal.unknownOption.bind(command);
  internal.unknownOption = (flag: string) => unknownOption(flag.startsWith('--') ? flag.split('=')[0]! : flag.slice(0, 2));
  for (const sub of command.commands) conventions(sub);
  return command;
}

/** `pods` or `jobs` alone is a short usage error, not a page of help. */
function requireSubcommand(group: Command): Command {
  const help = group.help.bind(group);
  group.help = ((context?: { error?: boolean }) => {
    if (context?.error) {
      const names = group.commands.map((c) => c.name()).filter((n) => n !== 'help');
      group.error(`${pathOf(group)}: missing subcommand (${names.join(', ')})`, { exitCode: EXIT.usage, code: 'runpod-gql.missingSubcommand' });
    }
    return help(context as { error: boolean });
  }) as Command['help'];
  return group;
}

/** JSON (with --json, or where there is no human form) or the human form; server text never reaches the terminal raw. */
function print(options: GlobalOptions, value: unknown, human?: () => void): void {
  if (options.json || !human) console.log(safeJson(value, 2));
  else human();
}

/** One line of human output that may hold server text (names, images, messages). */
function say(text: string): void {
  console.log(safeText(text));
}

/**
 * On Ctrl-C during a wait: what is still running and how to deal with it, then exit 130 (the
 * shell's code for SIGINT). The wait stops; what it waited for does not.
 */
function onInterrupt(describe: () => string, line?: { done(): void }): () => void {
  const handler = () => {
    line?.done();
    process.stderr.write(`\n${safeText(where)}: interrupted. ${safeText(describe())}\n`);
    process.exit(130);
  };
  process.once('SIGINT', handler);
  return () => process.off('SIGINT', handler);
}

/**
 * Progress on a terminal only: a line rewritten in place on stderr, showing the last state reported
 * and the time elapsed. It ticks every second, because a long-poll reports nothing until the wait
 * ends; `done()` erases it.
 */
function progressLine(initialState: string): { state(text: string): void; done(): void } | undefined {
  if (process.stderr.isTTY !== true) return undefined;
  const startedAt = Date.now();
  let current = initialState;
  const render = () => process.stderr.write(`\r${formatProgress(current, Date.now() - startedAt)}\u001b[K`);
  render();
  const ticker = setInterval(render, 1_000);
  return {
    state(text) {
      current = text;
      render();
    },
    done() {
      clearInterval(ticker);
      // The progress line goes away: what follows (the result or the error) stands on its own.
      process.stderr.write('\r\u001b[K');
    },
  };
}

interface Session {
  rp: RunpodClient;
  emulator?: Emulator;
}

/** One line on stderr when rp.pods or rp.gpuTypes leaves GraphQL (instead of Node's warning). */
const transportNote = (event: TransportChangeEvent) =>
  console.error(`note: GraphQL ${event.reason === 'retired' ? 'is retired (410 Gone)' : 'is rate-limited'}; ${event.surface} went on over REST v2 (--transport rest skips GraphQL)`);

async function openSession(options: GlobalOptions): Promise<Session> {
  if (options.emulator) {
    // Loaded only when used: the emulator (Hono, graphql-js) would slow every other command's start.
    const { createEmulator } = await import('../emulator/index.js');
    const emulator = createEmulator({ podStartupMs: 500 });
    return { rp: createRunpodClient({ ...emulator.clientOptions(), podsTransport: options.transport, onTransportChange: transportNote }), emulator };
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
  return { rp: createRunpodClient({ apiKey, ...urls, podsTransport: options.transport, onTransportChange: transportNote }) };
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

/** The command and the ids the user typed (`runpod-gql jobs status echo 1234`), for error messages. */
let where = 'runpod-gql';
/** The command whose `--help` a usage error points to. */
let helpPath = 'runpod-gql';

/** Library fields and the flags that set them, so a refused value is named as the user typed it. */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  gpuCount: '--count',
  maxPricePerHour: '--max-price',
  minMemoryInGb: '--min-memory',
  ports: '--ports',
  timeoutMs: '--timeout',
  name: '--name',
  imageName: '--image',
  gpuTypeId: '--gpu',
  volumeInGb: '--volume',
  containerDiskInGb: '--disk',
  env: '--env',
  input: '--input',
  apiKey: '--api-key',
};

/** What the user typed for `flag` (`--flag value` or `--flag=value`), if anything. */
function typedValue(argv: readonly string[], flag: string): string | undefined {
  for (let i = argv.length - 1; i >= 0; i--) {
    const arg = argv[i]!;
    if (arg === flag) return argv[i + 1];
    if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1);
  }
  return undefined;
}

/** A library ValidationError in the CLI's words: the flag and the value as typed, then the library's reason. */
function usageOf(err: ValidationError, argv: readonly string[]): string {
  const field = err.field.replace(/^input\.(?=.)/, '');
  const flag = FLAG_OF_FIELD[field] ?? FLAG_OF_FIELD[field.split(/[.[]/)[0]!];
  const reason = err.message.startsWith(`${err.field}: `) ? err.message.slice(err.field.length + 2) : err.message;
  if (!flag) return `invalid ${err.field}: ${reason}`;
  // Never echo a key, not even a refused one.
  const typed = flag === '--api-key' ? undefined : typedValue(argv, flag);
  return `invalid ${flag}${typed === undefined ? '' : ` ${JSON.stringify(typed)}`}: ${field} ${reason}`;
}

/** Wraps an action: opens the client, runs, and ends the in-process emulator so the process can exit. */
function withClient<Args extends unknown[]>(run: (session: Session, options: GlobalOptions & Record<string, unknown>, ...args: Args) => Promise<void>) {
  return async function (this: Command, ...args: unknown[]): Promise<void> {
    const operands = args.slice(0, this.registeredArguments.length);
    where = [pathOf(this), ...operands].join(' ');
    helpPath = pathOf(this);
    const options = this.optsWithGlobals<GlobalOptions & Record<string, unknown>>();
    const session = await openSession(options);
    try {
      await run(session, options, ...(operands as Args));
    } finally {
      session.emulator?.dispose();
    }
  };
}

function buildProgram(): Command {
  const program = new Command('runpod-gql')
    .description('The RunPod GPU cloud from the command line.')
    .version(version(), '-v, --version', 'print the version')
    .option('--api-key <key>', 'API key; prefer $RUNPOD_API_KEY, or "-" to read it from stdin (a key typed here shows in the process list and shell history)')
    .option('--emulator', 'run against an in-process emulator (no account, no network; its state lasts one command)')
    .option('--json', 'machine-readable output')
    .helpOption('-h, --help', 'help for any command')
    .helpCommand('help [command]', 'help for a command')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .addHelpText(
      'after',
      `
Environment: RUNPOD_API_KEY, and RUNPOD_GRAPHQL_URL / RUNPOD_REST_URL / RUNPOD_SERVERLESS_URL to point at
another server, for example a running \`runpod-gql emulator\` (it prints the values to use).

Exit codes: 0 ok, 1 unexpected error, 2 usage error (nothing was sent), 3 API error, 4 no capacity,
130 interrupted (Ctrl-C during a wait: what is still running is printed, with how to stop it).`,
    );

  program
    .command('gpus')
    .description('GPU offers in stock, cheapest first')
    .option('--count <n>', 'GPUs per pod', gpuCount, 1)
    .addOption(new Option('--secure', 'secure cloud only').conflicts('community'))
    .option('--community', 'community cloud only')
    .option('--min-memory <gb>', 'minimum GPU memory (VRAM)', gigabytes)
    .option('--max-price <usd>', 'highest price per hour for all --count GPUs', price)
    .addOption(transportOption())
    .action(
      withClient(async ({ rp }, o) => {
        const offers = await rp.gpuTypes.offers({
          gpuCount: o.count as number,
          secureCloud: o.secure ? true : o.community ? false : undefined,
          minMemoryInGb: o.minMemory as number | undefined,
          maxPricePerHour: o.maxPrice as number | undefined,
        });
        print(o, offers, () =>
          printTable(offers.map((x) => ({ GPU: x.displayName, ID: x.gpuTypeId, MEMORY: `${x.memoryInGb ?? '?'} GB`, '$/HR': x.pricePerHour.toFixed(2), STOCK: x.stockStatus, AVAILABLE: x.availableGpuCounts.join(',') }))),
        );
      }),
    );

  const pods = requireSubcommand(program.command('pods').description('deploy, inspect and control pods').addOption(transportOption()));
  pods
    .command('list')
    .description('your pods')
    .action(
      withClient(async ({ rp }, o) => {
        const list = await rp.pods.list();
        print(o, list, () => printTable(list.map((p) => ({ ID: p.id, NAME: p.name, STATUS: p.desiredStatus, GPUS: p.gpuCount, '$/HR': p.costPerHr, IMAGE: p.imageName ?? '' }))));
      }),
    );
  pods
    .command('get')
    .description('one pod (JSON)')
    .argument('<pod-id>')
    .action(
      withClient(async ({ rp }, o, podId: string) => {
        const pod = await rp.pods.get(podId);
        // The same error (and exit code 3) as `pods stop` of a missing pod.
        if (!pod) throw new NotFoundError(`no pod ${podId} on this account`, { status: 404 });
        print(o, pod);
      }),
    );
  pods
    .command('deploy')
    .description('deploy a pod')
    .requiredOption('--gpu <type>', 'GPU type id (see `runpod-gql gpus`)')
    .requiredOption('--image <image>', 'container image')
    .option('--name <name>', 'pod name', podName, 'runpod-gql')
    .option('--count <n>', 'GPUs', gpuCount, 1)
    .option('--ports <ports>', 'exposed ports, e.g. 8888/http,22/tcp')
    .option('--env <key=value>', 'an environment variable (repeatable)', envPair)
    .option('--volume <gb>', 'volume disk size', diskGigabytes)
    .option('--disk <gb>', 'container disk size', diskGigabytes)
    .addOption(new Option('--secure', 'secure cloud only').conflicts('community'))
    .option('--community', 'community cloud only')
    .action(
      withClient(async ({ rp, emulator }, o) => {
        const pod = await rp.pods.deploy({
          name: o.name as string,
          imageName: o.image as string,
          gpuTypeId: o.gpu as string,
          gpuCount: o.count as number,
          cloudType: o.secure ? 'SECURE' : o.community ? 'COMMUNITY' : 'ALL',
          ports: o.ports as string | undefined,
          volumeInGb: o.volume as number | undefined,
          containerDiskInGb: o.disk as number | undefined,
          env: (o.env as Record<string, string> | undefined) ?? {},
        });
        if (emulator) console.error(EMULATOR_NOTE('pod'));
        print(o, pod, () => say(`deployed ${pod.id} (${pod.gpuCount} GPU, $${pod.costPerHr}/hr)`));
      }),
    );
  pods
    .command('stop')
    .description('stop a pod (keeps /workspace)')
    .argument('<pod-id>')
    .action(
      withClient(async ({ rp }, o, podId: string) => {
        const stopped = await rp.pods.stop(podId);
        print(o, stopped, () => say(`${stopped.id} ${stopped.desiredStatus}`));
      }),
    );
  pods
    .command('resume')
    .description('start a stopped pod')
    .argument('<pod-id>')
    .option('--count <n>', 'GPUs', gpuCount, 1)
    .action(
      withClient(async ({ rp }, o, podId: string) => {
        const pod = await rp.pods.resume({ podId, gpuCount: o.count as number });
        print(o, pod, () => say(`${pod.id} ${pod.desiredStatus} with ${pod.gpuCount} GPU`));
      }),
    );
  pods
    .command('terminate')
    .description('delete a pod and everything not on a network volume')
    .argument('<pod-id>')
    .action(
      withClient(async ({ rp }, o, podId: string) => {
        await rp.pods.terminate(podId);
        print(o, { id: podId, terminated: true }, () => say(`${podId} terminated`));
      }),
    );
  pods
    .command('wait')
    .description('wait until the pod is RUNNING with its ports mapped (progress on a terminal)')
    .argument('<pod-id>')
    .option('--timeout <seconds>', 'give up after this long', seconds)
    .option('--no-require-ports', 'do not wait for port mappings (a pod without ports)')
    .action(
      withClient(async ({ rp, emulator }, o, podId: string) => {
        const line = progressLine('waiting for the pod');
        const timeout = o.timeout as number | undefined;
        const stillRunning = emulator
          ? `pod ${podId} ends with this command (--emulator).`
          : `pod ${podId} keeps starting and is billed while it runs. Check it: runpod-gql pods get ${podId}; stop it: runpod-gql pods stop ${podId}; delete it: runpod-gql pods terminate ${podId}`;
        const offInterrupt = onInterrupt(() => `Stopped waiting; ${stillRunning}`, line);
        let pod;
        try {
          pod = await rp.pods.waitUntilReady(podId, {
            timeoutMs: timeout === undefined ? undefined : timeout * 1000,
            requirePorts: o.requirePorts as boolean,
            onProgress: line && (({ pod: p }) => line.state(`${p.desiredStatus}, container ${p.runtime ? 'up' : 'starting'}`)),
          });
        } finally {
          offInterrupt();
          line?.done();
        }
        const ready = pod;
        print(o, ready, () => say(`${ready.id} ready: ${(ready.runtime?.ports ?? []).map((p) => `${p?.privatePort}/${p?.type} → ${p?.ip}:${p?.publicPort}`).join(', ')}`));
      }),
    );

  const jobs = requireSubcommand(program.command('jobs').description('serverless jobs on queue-based endpoints'));
  jobs
    .command('run')
    .description('queue a job and print its id (--wait: until done; --sync: runsync)')
    .argument('<endpoint-id>')
    .option('--input <json>', 'the job input', json, {})
    .addOption(new Option('--sync', 'run with /runsync').conflicts('wait'))
    .option('--wait', 'queue, then wait until the job is done')
    .option('--timeout <seconds>', 'with --sync or --wait: give up after this long', seconds)
    .action(
      withClient(async ({ rp, emulator }, o, endpointId: string) => {
        const endpoint = rp.endpoint(endpointId);
        const timeout = o.timeout as number | undefined;
        if (timeout !== undefined && !o.sync && !o.wait) throw new UsageError('--timeout needs --sync or --wait');
        if (o.sync || o.wait) {
          const ended = emulator ? ' It ends with this command (--emulator).' : '';
          // Until /run or /runsync answers, a job may be queued whose id is not known yet.
          let running = `A job may have been queued on endpoint ${endpointId}, but its id has not come back; it may still run.${ended}`;
          let line = progressLine(o.sync ? 'waiting for /runsync' : 'queueing');
          const offInterrupt = onInterrupt(() => running, { done: () => line?.done() });
          // On a terminal the server holds each status request briefly, so the line shows the job's
          // real status (IN_QUEUE, then IN_PROGRESS) rather than the first one seen.
          const waitOptions = {
            timeoutMs: timeout === undefined ? undefined : timeout * 1000,
            holdMs: line ? 2_000 : undefined,
            onProgress: line && (({ job }: { job: { id: string; status: string } }) => line?.state(`job ${job.id}: ${job.status}`)),
          };
          let done: unknown;
          try {
            if (o.sync) done = await endpoint.runSync(o.input, waitOptions);
            else {
              const job = await endpoint.run(o.input);
              running = `Stopped waiting; job ${job.id} on endpoint ${endpointId} keeps running and is billed while it runs.${ended || ` Cancel it: runpod-gql jobs cancel ${endpointId} ${job.id}; check it: runpod-gql jobs status ${endpointId} ${job.id}`}`;
              // The id first, on its own line: whatever happens next, the user knows which job is theirs.
              line?.done();
              console.error(safeText(`job ${job.id} queued on endpoint ${endpointId}`));
              line = progressLine(`job ${job.id}: IN_QUEUE`);
              done = await job.wait(waitOptions);
            }
          } finally {
            offInterrupt();
            line?.done();
          }
          return print(o, done);
        }
        const job = await endpoint.run(o.input);
        if (emulator) console.error(EMULATOR_NOTE('job'));
        print(o, { id: job.id, endpointId: job.endpointId }, () => say(job.id));
      }),
    );
  jobs
    .command('status')
    .description("a job's state (JSON)")
    .argument('<endpoint-id>')
    .argument('<job-id>')
    .action(
      withClient(async ({ rp }, o, endpointId: string, jobId: string) => {
        print(o, await rp.endpoint(endpointId).status(jobId));
      }),
    );
  jobs
    .command('stream')
    .description("print a job's output chunks as they come (--json: one JSON line per chunk, with its metrics)")
    .argument('<endpoint-id>')
    .argument('<job-id>')
    .action(
      withClient(async ({ rp }, o, endpointId: string, jobId: string) => {
        // Strings as they are (a model's tokens join up), anything else as one JSON line.
        let atLineStart = true;
        for await (const chunk of rp.endpoint(endpointId).stream(jobId)) {
          let text: string;
          if (o.json) text = `${safeJson(chunk)}\n`;
          else if (typeof chunk.output === 'string') text = safeText(chunk.output);
          else text = `${atLineStart ? '' : '\n'}${safeJson(chunk.output)}\n`;
          if (text === '') continue;
          process.stdout.write(text);
          atLineStart = text.endsWith('\n');
        }
        if (!atLineStart) process.stdout.write('\n');
      }),
    );
  jobs
    .command('cancel')
    .description('cancel a job')
    .argument('<endpoint-id>')
    .argument('<job-id>')
    .action(
      withClient(async ({ rp }, o, endpointId: string, jobId: string) => {
        print(o, await rp.endpoint(endpointId).cancel(jobId));
      }),
    );

  program
    .command('emulator')
    .description('serve the local emulator for other programs until interrupted')
    .option('--port <n>', 'port (0 picks a free one)', port, 8787)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .action(async function (this: Command) {
      where = pathOf(this);
      await serveEmulator(this.optsWithGlobals<GlobalOptions & { port: number; host: string }>());
    });

  return conventions(program);
}

async function serveEmulator(options: GlobalOptions & { port: number; host: string }): Promise<void> {
  const [{ createEmulator }, { listen }] = await Promise.all([import('../emulator/index.js'), import('../emulator/node.js')]);
  const emulator = createEmulator();
  const server = await listen(emulator, { port: options.port, host: options.host }).catch((err: NodeJS.ErrnoException) => {
    emulator.dispose();
    throw new RunpodError(`cannot serve on ${options.host}:${options.port}: ${err.code === 'EADDRINUSE' ? 'the port is in use' : err.message}`);
  });
  const { apiKey } = server.clientOptions();
  const env = { RUNPOD_API_KEY: apiKey, RUNPOD_GRAPHQL_URL: server.graphqlUrl, RUNPOD_REST_URL: server.restUrl, RUNPOD_SERVERLESS_URL: server.serverlessUrl };
  if (options.json) {
    console.log(JSON.stringify({ url: server.url, graphqlUrl: server.graphqlUrl, restUrl: server.restUrl, serverlessUrl: server.serverlessUrl, apiKey, env }));
  } else {
    console.log(`runpod-gql emulator listening on ${server.url}
  graphqlUrl     ${server.graphqlUrl}
  restUrl        ${server.restUrl}
  serverlessUrl  ${server.serverlessUrl}   (public endpoints: echo, sleep, fail, stream)
  apiKey         ${apiKey}

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


export async function main(argv: string[]): Promise<number> {
  // `--api-key KEY` would stay readable in the process list (`ps`, /proc) for the whole command:
  // the process title overwrites the original command line (Linux, macOS). Help says to prefer
  // the environment or `--api-key -`.
  if (argv.some((a) => (a === '--api-key' || a.startsWith('--api-key=')) && a !== '--api-key=-') && !argv.includes('-')) process.title = 'runpod-gql';
  const program = buildProgram();
  // Every command throws instead of exiting, so this function picks the exit code.
  const override = (command: Command) => {
    command.exitOverride();
    for (const sub of command.commands) override(sub);
  };
  override(program);
  // `help pods deploy` is `pods deploy --help` (commander's help command looks one level down only).
  const args = argv[0] === 'help' && argv.length > 2 ? [...argv.slice(1), '--help'] : argv;
  try {
    await program.parseAsync(args, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) return EXIT.ok;
      return EXIT.usage;
    }
    if (err instanceof UsageError) {
      console.error(safeText(`${where}: ${err.message}`));
      return EXIT.usage;
    }
    if (err instanceof ValidationError && err.status === undefined) {
      console.error(safeText(`${where}: ${usageOf(err, args)} (nothing was sent)\nRun '${helpPath} --help' for usage.`));
      return EXIT.usage;
    }
    if (err instanceof CapacityUnavailableError) {
      console.error(safeText(`${where}: no capacity: ${err.message}`));
      return EXIT.capacity;
    }
    if (err instanceof RunpodError) {
      console.error(safeText(`${where}: ${err.name}: ${err.message}`));
      return EXIT.api;
    }
    console.error(safeText(err instanceof Error ? (err.stack ?? String(err)) : String(err)));
    return EXIT.unexpected;
  }
}

// `runpod-gql pods list | head`: a reader that goes away is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});
process.exitCode = await main(process.argv.slice(2));
