// Issue 38's gateway comparison: the same pod read through three GraphQL servers, each in its own
// process, from one emulator in another: runpod-gql's gateway, graphql-yoga + graphql-armor with
// one hand-written resolver (what a user would pick instead), and the floor (the project's own
// listener and REST client, no GraphQL). The bench sends each server rounds of requests at
// concurrency 16, in a rotating order, and reads the server process's CPU time (user + system)
// before and after each round from the server itself.
import { spawn, type ChildProcess } from 'node:child_process';
import { countFailure, mergeFailures, type Failures } from './honest-rows.js';
import { spread, type Spread } from './stats.js';

export type ServerKind = 'gateway' | 'yoga' | 'floor';
export const SERVER_KINDS: readonly ServerKind[] = ['gateway', 'yoga', 'floor'];
const TOKEN = 'bench-gateway-processes-token-0123456789';
/**
 * Requests in flight from the bench's client. The gateway server is started with a per-caller
 * in-flight limit of at least this (`limits.maxInFlight`, passed to the server): with the default
 * of 4, 12 of every 16 requests were refused 429 and the row printed no figure (issue 46).
 */
export const CONCURRENCY = 16;

export interface GatewayProcessFigures {
  /** CPU µs per request of each server's process, per round. */
  readonly cpuUs: Readonly<Record<ServerKind, Spread>>;
  /** Total CPU over all rounds: gateway / yoga and gateway / floor. */
  readonly gatewayOverYoga: number;
  readonly gatewayOverFloor: number;
  /** The same ratio per round (median and interquartile range). */
  readonly roundRatios: { readonly overYoga: Spread; readonly overFloor: Spread };
  readonly rounds: number;
  readonly perRound: number;
  readonly concurrency: number;
  /** Requests that failed, per server (HTTP status or error → count): with any, no ratio is printed. */
  readonly failures: Readonly<Record<ServerKind, Failures>>;
  /** All servers' failures together. */
  readonly allFailures: Failures;
}

interface Started {
  readonly url: string;
  readonly child: ChildProcess;
}

/** Starts one server with `command` (pinned by the caller) and waits for its JSON line. */
function startServer(command: [string, string[]], cwd: string): Promise<Started> {
  const child = spawn(command[0], command[1], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const newline = out.indexOf('\n');
      if (newline >= 0) resolve({ url: (JSON.parse(out.slice(0, newline)) as { url: string }).url, child });
    });
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
}

const cpuOf = async (graphqlUrl: string): Promise<number> => {
  const { user, system } = (await (await fetch(graphqlUrl.replace(/\/graphql$/, '/__cpu'))).json()) as { user: number; system: number };
  return user + system;
};

/**
 * Measures the three servers. `serverCommand(args)` gives the (pinned) command line of a server
 * script; `emulator` is the emulator's client options, with one pod in its account.
 */
export async function measureGatewayProcesses(
  serverCommand: (args: string[]) => [string, string[]],
  cwd: string,
  emulator: { restUrl: string; graphqlUrl: string; apiKey: string },
  quick: boolean,
): Promise<GatewayProcessFigures> {
  // A list answers an array, or a page `{ pods, pagination }` when it pages.
  const listed = (await (await fetch(`${emulator.restUrl}/pods`, { headers: { authorization: `Bearer ${emulator.apiKey}` } })).json()) as Array<{ id: string }> | { pods: Array<{ id: string }> };
  const podId = (Array.isArray(listed) ? listed : listed.pods)[0]!.id;
  const config = JSON.stringify({ ...emulator, token: TOKEN, maxInFlight: CONCURRENCY });
  const servers = {} as Record<ServerKind, Started>;
  try {
    for (const kind of SERVER_KINDS) servers[kind] = await startServer(serverCommand([kind, config]), cwd);
    const body = JSON.stringify({ query: 'query Pod($id: String!) { pod(input: { podId: $id }) { id name desiredStatus imageName } }', variables: { id: podId } });
    const headers = { 'content-type': 'application/json', accept: 'application/graphql-response+json', authorization: `Bearer ${TOKEN}` };
    const failures: Record<ServerKind, Failures> = { gateway: {}, yoga: {}, floor: {} };
    // Every request is counted, answered or not: a refused or failed one is a failure of its
    // server's round, never a fast request.
    const one = async (kind: ServerKind, url: string) => {
      try {
        const response = await fetch(url, { method: 'POST', headers, body });
        const text = await response.text();
        if (!response.ok || !text.includes(podId)) {
          const code = /"code":"([A-Z_]+)"/.exec(text)?.[1];
          countFailure(failures[kind], { name: `HTTP ${response.status}`, message: code ?? text.slice(0, 60) });
        }
      } catch (err) {
        countFailure(failures[kind], err);
      }
    };
    const round = async (kind: ServerKind, requests: number): Promise<number> => {
      const url = servers[kind].url;
      const before = await cpuOf(url);
      let next = 0;
      await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
        while (next < requests) {
          next++;
          await one(kind, url);
        }
      }));
      return ((await cpuOf(url)) - before) / requests;
    };
    const perRound = quick ? 500 : 2_000;
    const rounds = quick ? 6 : 15;
    // Warm-up: every server's code paths compiled, its connections open.
    for (const kind of SERVER_KINDS) await round(kind, perRound);
    const samples: Record<ServerKind, number[]> = { gateway: [], yoga: [], floor: [] };
    for (let r = 0; r < rounds; r++) {
      // Rotating order, so drift on the machine falls on every server alike.
      for (let i = 0; i < SERVER_KINDS.length; i++) {
        const kind = SERVER_KINDS[(r + i) % SERVER_KINDS.length]!;
        samples[kind].push(await round(kind, perRound));
      }
    }
    const total = (kind: ServerKind) => samples[kind].reduce((a, b) => a + b, 0);
    return {
      cpuUs: { gateway: spread(samples.gateway), yoga: spread(samples.yoga), floor: spread(samples.floor) },
      gatewayOverYoga: total('gateway') / total('yoga'),
      gatewayOverFloor: total('gateway') / total('floor'),
      roundRatios: {
        overYoga: spread(samples.gateway.map((g, i) => g / samples.yoga[i]!)),
        overFloor: spread(samples.gateway.map((g, i) => g / samples.floor[i]!)),
      },
      rounds,
      perRound,
      concurrency: CONCURRENCY,
      failures,
      allFailures: mergeFailures(...SERVER_KINDS.map((kind) => failures[kind])),
    };
  } finally {
    for (const server of Object.values(servers)) server.child.kill('SIGTERM');
  }
}
