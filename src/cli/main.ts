#!/usr/bin/env node
// The `runpod-gql` command line. Exit codes: 0 ok, 1 unexpected, 2 usage, 3 API error, 4 no capacity.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CapacityUnavailableError, createRunpodClient, RunpodError, type RunpodClient } from '../index.js';
import { createEmulator, type ListeningEmulator } from '../emulator/index.js';
import { listen } from '../emulator/node.js';

const EXIT = { ok: 0, unexpected: 1, usage: 2, api: 3, capacity: 4 } as const;

class UsageError extends Error {}

const HELP: Record<string, string> = {
  main: `runpod-gql: the RunPod GPU cloud from the command line

Usage: runpod-gql <command> [options]

Commands:
  gpus                     GPU offers in stock, cheapest first
  pods <list|get|deploy|stop|resume|terminate|wait>
  jobs <run|status|stream|cancel>   serverless jobs
  emulator                 serve the local emulator for other programs

Common options:
  --api-key KEY            API key (default: $RUNPOD_API_KEY)
  --emulator               run against an in-process emulator (no account, no network)
  --json                   machine-readable output
  -h, --help               help for any command

Environment: RUNPOD_API_KEY, and RUNPOD_GRAPHQL_URL / RUNPOD_REST_URL / RUNPOD_SERVERLESS_URL
to point at another server (for example \`runpod-gql emulator\`).

Exit codes: 0 ok, 1 unexpected error, 2 usage error, 3 API error, 4 no capacity.`,
  gpus: `Usage: runpod-gql gpus [--count N] [--secure | --community] [--min-memory GB] [--max-price USD] [--json]

Lists in-stock GPU offers sorted by price per hour (for --count GPUs).
  --count N          GPUs per pod (default 1)
  --secure           secure cloud only
  --community        community cloud only
  --min-memory GB    minimum GPU memory (VRAM)
  --max-price USD    highest price per hour for all --count GPUs`,
  pods: `Usage: runpod-gql pods <subcommand>

  list                                   your pods
  get ID                                 one pod (JSON)
  deploy --gpu TYPE --image IMAGE [--name N] [--count N] [--ports 8888/http,22/tcp]
         [--env KEY=VALUE ...] [--volume GB] [--disk GB] [--secure | --community]
  stop ID | resume ID [--count N] | terminate ID
  wait ID [--timeout SECONDS]            until RUNNING with ports mapped (progress on a terminal)`,
  jobs: `Usage: runpod-gql jobs <subcommand> ENDPOINT_ID ...

  run ENDPOINT_ID [--input JSON] [--sync] [--wait]   queue a job (--sync: runsync; --wait: until done)
  status ENDPOINT_ID JOB_ID
  stream ENDPOINT_ID JOB_ID                           print output chunks as they come
  cancel ENDPOINT_ID JOB_ID`,
  emulator: `Usage: runpod-gql emulator [--port N] [--host 127.0.0.1]

Serves the local emulator until interrupted and prints the URLs and API key to use.`,
};

const OPTIONS: ParseArgsConfig['options'] = {
  'api-key': { type: 'string' },
  emulator: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  count: { type: 'string' },
  secure: { type: 'boolean' },
  community: { type: 'boolean' },
  'min-memory': { type: 'string' },
  'max-price': { type: 'string' },
  gpu: { type: 'string' },
  image: { type: 'string' },
  name: { type: 'string' },
  ports: { type: 'string' },
  env: { type: 'string', multiple: true },
  volume: { type: 'string' },
  disk: { type: 'string' },
  timeout: { type: 'string' },
  input: { type: 'string' },
  sync: { type: 'boolean' },
  wait: { type: 'boolean' },
  port: { type: 'string' },
  host: { type: 'string' },
};

type Flags = Record<string, string | boolean | string[] | undefined>;

function number(flags: Flags, name: string): number | undefined {
  const raw = flags[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (typeof raw !== 'string' || raw.trim() === '' || !Number.isFinite(value)) throw new UsageError(`--${name} takes a number, got ${JSON.stringify(raw)}`);
  return value;
}

function positional(args: string[], index: number, what: string): string {
  const value = args[index];
  if (!value) throw new UsageError(`missing ${what}`);
  return value;
}

function print(flags: Flags, value: unknown, human?: () => void): void {
  if (flags.json || !human) console.log(JSON.stringify(value, null, 2));
  else human();
}

function table(rows: Array<Record<string, string | number>>): void {
  if (rows.length === 0) {
    console.log('(none)');
    return;
  }
  const columns = Object.keys(rows[0]!);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  console.log(columns.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd());
  for (const row of rows) console.log(columns.map((c, i) => String(row[c]).padEnd(widths[i]!)).join('  ').trimEnd());
}

async function gpus(rp: RunpodClient, flags: Flags): Promise<void> {
  if (flags.secure && flags.community) throw new UsageError('choose --secure or --community, not both');
  const offers = await rp.gpuTypes.offers({
    gpuCount: number(flags, 'count') ?? 1,
    secureCloud: flags.secure ? true : flags.community ? false : undefined,
    minMemoryInGb: number(flags, 'min-memory'),
    maxPricePerHour: number(flags, 'max-price'),
  });
  print(flags, offers, () =>
    table(offers.map((o) => ({ GPU: o.displayName, ID: o.gpuTypeId, MEMORY: `${o.memoryInGb ?? '?'} GB`, '$/HR': o.pricePerHour.toFixed(2), STOCK: o.stockStatus, AVAILABLE: o.availableGpuCounts.join(',') }))),
  );
}

async function pods(rp: RunpodClient, args: string[], flags: Flags): Promise<void> {
  const [sub] = args;
  switch (sub) {
    case 'list': {
      const list = await rp.pods.list();
      return print(flags, list, () => table(list.map((p) => ({ ID: p.id, NAME: p.name, STATUS: p.desiredStatus, GPUS: p.gpuCount, '$/HR': p.costPerHr, IMAGE: p.imageName ?? '' }))));
    }
    case 'get': {
      const pod = await rp.pods.get(positional(args, 1, 'pod id'));
      if (!pod) throw new RunpodError(`no pod ${args[1]}`);
      return print(flags, pod);
    }
    case 'deploy': {
      if (!flags.gpu) throw new UsageError('deploy needs --gpu TYPE (see `runpod-gql gpus`)');
      if (!flags.image) throw new UsageError('deploy needs --image IMAGE');
      if (flags.secure && flags.community) throw new UsageError('choose --secure or --community, not both');
      const env = Object.fromEntries(((flags.env as string[] | undefined) ?? []).map((pair) => {
        const eq = pair.indexOf('=');
        if (eq < 1) throw new UsageError(`--env takes KEY=VALUE, got ${JSON.stringify(pair)}`);
        return [pair.slice(0, eq), pair.slice(eq + 1)];
      }));
      const pod = await rp.pods.deploy({
        name: (flags.name as string | undefined) ?? 'runpod-gql',
        imageName: flags.image as string,
        gpuTypeId: flags.gpu as string,
        gpuCount: number(flags, 'count') ?? 1,
        cloudType: flags.secure ? 'SECURE' : flags.community ? 'COMMUNITY' : 'ALL',
        ports: flags.ports as string | undefined,
        volumeInGb: number(flags, 'volume'),
        containerDiskInGb: number(flags, 'disk'),
        env,
      });
      return print(flags, pod, () => console.log(`deployed ${pod.id} (${pod.gpuCount} GPU, $${pod.costPerHr}/hr)`));
    }
    case 'stop': {
      const stopped = await rp.pods.stop(positional(args, 1, 'pod id'));
      return print(flags, stopped, () => console.log(`${stopped.id} ${stopped.desiredStatus}`));
    }
    case 'resume': {
      const pod = await rp.pods.resume({ podId: positional(args, 1, 'pod id'), gpuCount: number(flags, 'count') ?? 1 });
      return print(flags, pod, () => console.log(`${pod.id} ${pod.desiredStatus} with ${pod.gpuCount} GPU`));
    }
    case 'terminate': {
      const podId = positional(args, 1, 'pod id');
      await rp.pods.terminate(podId);
      return print(flags, { id: podId, terminated: true }, () => console.log(`${podId} terminated`));
    }
    case 'wait': {
      const podId = positional(args, 1, 'pod id');
      const tty = process.stderr.isTTY === true;
      const timeoutSeconds = number(flags, 'timeout');
      const pod = await rp.pods.waitUntilReady(podId, {
        timeoutMs: timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000,
        onProgress: tty ? ({ pod: p, elapsedMs }) => process.stderr.write(`\r${p.desiredStatus}, container ${p.runtime ? 'up' : 'starting'}… ${Math.round(elapsedMs / 1000)} s   `) : undefined,
      });
      if (tty) process.stderr.write('\n');
      return print(flags, pod, () => console.log(`${pod.id} ready: ${(pod.runtime?.ports ?? []).map((p) => `${p?.privatePort}/${p?.type} → ${p?.ip}:${p?.publicPort}`).join(', ')}`));
    }
    default:
      throw new UsageError(sub ? `unknown pods subcommand ${sub}` : 'pods needs a subcommand');
  }
}

async function jobs(rp: RunpodClient, args: string[], flags: Flags): Promise<void> {
  const [sub] = args;
  const endpoint = rp.endpoint(positional(args, 1, 'endpoint id'));
  switch (sub) {
    case 'run': {
      let input: unknown = {};
      if (flags.input !== undefined) {
        try {
          input = JSON.parse(flags.input as string);
        } catch {
          throw new UsageError('--input takes JSON, e.g. --input \'{"prompt":"hi"}\'');
        }
      }
      if (flags.sync) return print(flags, await endpoint.runSync(input));
      const job = await endpoint.run(input);
      if (flags.wait) return print(flags, await job.wait());
      return print(flags, { id: job.id, endpointId: job.endpointId }, () => console.log(job.id));
    }
    case 'status':
      return print(flags, await endpoint.status(positional(args, 2, 'job id')));
    case 'stream':
      for await (const chunk of endpoint.stream(positional(args, 2, 'job id'))) {
        console.log(flags.json || typeof chunk.output !== 'string' ? JSON.stringify(chunk) : chunk.output);
      }
      return;
    case 'cancel':
      return print(flags, await endpoint.cancel(positional(args, 2, 'job id')));
    default:
      throw new UsageError(sub ? `unknown jobs subcommand ${sub}` : 'jobs needs a subcommand');
  }
}

async function serveEmulator(flags: Flags): Promise<void> {
  const port = number(flags, 'port') ?? 8787;
  const emulator = createEmulator();
  const server: ListeningEmulator = await listen(emulator, { port, host: (flags.host as string | undefined) ?? '127.0.0.1' });
  const options = server.clientOptions();
  console.log(`runpod-gql emulator listening on ${server.url}
  graphqlUrl     ${server.graphqlUrl}
  restUrl        ${server.restUrl}
  serverlessUrl  ${server.serverlessUrl}   (endpoints: echo, sleep, fail, stream)
  apiKey         ${options.apiKey}

  createRunpodClient({ apiKey: '${options.apiKey}', graphqlUrl: '${server.graphqlUrl}', restUrl: '${server.restUrl}', serverlessUrl: '${server.serverlessUrl}' })
  or, for this CLI: RUNPOD_API_KEY=${options.apiKey} RUNPOD_GRAPHQL_URL=${server.graphqlUrl} RUNPOD_REST_URL=${server.restUrl} RUNPOD_SERVERLESS_URL=${server.serverlessUrl}
Press Ctrl+C to stop.`);
  await new Promise<void>((resolve) => {
    const stop = () => void server.close().then(resolve);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    console.error(`runpod-gql: ${(err as Error).message}\n\n${HELP.main}`);
    return EXIT.usage;
  }
  const flags = parsed.values as Flags;
  const [command, ...rest] = parsed.positionals;
  if (!command || (command === 'help' && rest.length === 0)) {
    console.log(HELP.main);
    return command || flags.help ? EXIT.ok : EXIT.usage;
  }
  if (!HELP[command]) {
    console.error(`runpod-gql: unknown command ${command}\n\n${HELP.main}`);
    return EXIT.usage;
  }
  if (flags.help) {
    console.log(HELP[command]);
    return EXIT.ok;
  }
  try {
    if (command === 'emulator') {
      await serveEmulator(flags);
      return EXIT.ok;
    }
    const apiKey = (flags['api-key'] as string | undefined) ?? process.env.RUNPOD_API_KEY;
    let rp: RunpodClient;
    if (flags.emulator) {
      rp = createRunpodClient(createEmulator({ podStartupMs: 500 }).clientOptions());
    } else if (!apiKey) {
      throw new UsageError('no API key: set RUNPOD_API_KEY, pass --api-key KEY, or try --emulator');
    } else {
      rp = createRunpodClient({
        apiKey,
        graphqlUrl: process.env.RUNPOD_GRAPHQL_URL || undefined,
        restUrl: process.env.RUNPOD_REST_URL || undefined,
        serverlessUrl: process.env.RUNPOD_SERVERLESS_URL || undefined,
      });
    }
    if (command === 'gpus') await gpus(rp, flags);
    else if (command === 'pods') await pods(rp, rest, flags);
    else await jobs(rp, rest, flags);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`runpod-gql: ${err.message}\n\n${HELP[command]}`);
      return EXIT.usage;
    }
    if (err instanceof CapacityUnavailableError) {
      console.error(`runpod-gql: no capacity: ${err.message}`);
      return EXIT.capacity;
    }
    if (err instanceof RunpodError) {
      console.error(`runpod-gql: ${err.name}: ${err.message}`);
      return EXIT.api;
    }
    console.error(err);
    return EXIT.unexpected;
  }
}

process.exitCode = await main(process.argv.slice(2));
