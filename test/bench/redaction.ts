// Issue 38's redaction row, in its own process (the index of live keys is process-wide): the CPU of
// one HTTP 500 answer (a 7 KB JSON body, scrubbed into its error) and of creating a client, first
// with one live key, then with 2,000 live clients of distinct keys of 20 to 500 characters (as many
// lengths as a key may have: the shape that cost one pass per length before). Prints one JSON line.
//
// `mode: 'first'` (issue 46 item 7): one sample of the FIRST error of a fresh process, after
// `keys` live clients, against the built client (`dist`, as users run it, bundled with esbuild:
// no loader's transpiling counted). Node's own fetch classes are loaded before the clock starts:
// any first answer pays for them, an error or not, and a fetch double would otherwise load them
// inside the error's time. Prints `{ wallMs, cpuMs }`.
import type * as Client from '../../src/index.js';
import { spread, type Spread } from './stats.js';

const input = JSON.parse(process.argv[2] ?? '{}') as { rounds: number; perRound: number; keys: number; mode?: 'steady' | 'first'; dist?: string };
const { rounds, perRound, keys } = input;
const { createRunpodClient, ServerError } = (await import(input.dist ?? '../../src/index.js')) as typeof Client;

const body = JSON.stringify({ error: 'internal failure, try again later; '.repeat(100), detail: 'stack frame at handler (server.js:1:1)\n'.repeat(100) });
const answer = () => new Response(body, { status: 500, headers: { 'content-type': 'application/json', 'x-request-id': 'req-bench' } });
const fetch500 = async () => answer();

/** A key of `length` characters, distinct per `i`. */
const keyOf = (i: number, length: number) => {
  let key = `rpa_${i.toString(36)}_`;
  for (let k = 0; key.length < length; k++) key += 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789'[(i * 131 + k * 17 + k * k * 7) % 56];
  return key;
};

const live: unknown[] = [];
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

const errorClient = () => createRunpodClient({ apiKey: keyOf(999_999, 40), fetch: fetch500, maxRetries: 0, rateLimits: false });
async function oneError(rp: ReturnType<typeof errorClient>): Promise<void> {
  const err = await rp.rest.pods.get('p1').then(() => undefined, (e: unknown) => e);
  if (!(err instanceof ServerError)) throw new Error('expected a ServerError');
}

async function errorsMs(): Promise<Spread> {
  const rp = errorClient();
  live.push(rp);
  for (let i = 0; i < perRound; i++) await oneError(rp);
  const per: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = cpuMs();
    for (let i = 0; i < perRound; i++) await oneError(rp);
    per.push((cpuMs() - t0) / perRound);
  }
  return spread(per);
}

let made = 0;
function clientsMs(): Spread {
  const per: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = cpuMs();
    // Kept alive: a client the collector took would take its key out of the index.
    for (let i = 0; i < 10; i++) live.push(createRunpodClient({ apiKey: keyOf(500_000 + made++, 44), fetch: fetch500 }));
    per.push((cpuMs() - t0) / 10);
  }
  return spread(per);
}

const liveClients = () => {
  for (let i = 0; i < keys; i++) live.push(createRunpodClient({ apiKey: keyOf(i, 20 + (i % 481)), fetch: fetch500 }));
};

if (input.mode === 'first') {
  await answer().text();
  liveClients();
  const rp = errorClient();
  const wall0 = performance.now();
  const cpu0 = cpuMs();
  await oneError(rp);
  const cpu = cpuMs() - cpu0;
  process.stdout.write(`${JSON.stringify({ wallMs: performance.now() - wall0, cpuMs: cpu, liveKeys: live.length + 1 })}\n`);
} else {
  const oneKey = { errorMs: await errorsMs(), clientMs: clientsMs(), liveKeys: 1 + rounds * 10 };
  liveClients();
  const manyKeys = { errorMs: await errorsMs(), clientMs: clientsMs(), liveKeys: live.length };
  process.stdout.write(`${JSON.stringify({ oneKey, manyKeys, bodyChars: body.length })}\n`);
}
