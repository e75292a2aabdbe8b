// Issue 43's rows: the upstream calls of four documents through the gateway against what a careful
// client sends (counts at the fetch seam: test/gateway/call-counts.ts, the same documents the count
// test runs), and the wait another token's one-call query sees while one token runs its 4 documents
// of 25 upstream calls each, on an upstream that answers each call after a fixed delay.
// Standalone (`npx tsx test/bench/upstream-calls.ts [--quick]`) it prints its figures as JSON, so
// another tree (a copy of main) can be measured with the same file.
import { createGateway } from '../../src/gateway/index.js';
import { countDocuments, type CallCount } from '../gateway/call-counts.js';
import { countFailure, type Failures } from './honest-rows.js';

const HEAVY = 'upstream-calls-heavy-token-0123456789';
const LIGHT = 'upstream-calls-light-token-0123456789';

export interface WaitFigures {
  /** Milliseconds each upstream call takes. */
  readonly upstreamMs: number;
  /** The light token's one-call query alone, median ms. */
  readonly aloneMs: number;
  /** The same while the heavy token runs its documents: each sample's ms. */
  readonly loadedMs: readonly number[];
  readonly medianMs: number;
  readonly maxMs: number;
  /** Upstream calls the heavy token made meanwhile. */
  readonly heavyCalls: number;
  /** Documents of either token not answered 200 (the pod reads answer null, never an error status). */
  readonly failures: Failures;
}

export interface UpstreamCallFigures {
  readonly counts: readonly CallCount[];
  readonly wait: WaitFigures;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

/** Another token's one-call query while one token keeps its 4 documents of 25 calls running. */
export async function measureWait(quick: boolean, upstreamMs = 100): Promise<WaitFigures> {
  let heavyCalls = 0;
  const gateway = createGateway({
    tokens: `read:${HEAVY},read:${LIGHT}`,
    limits: { rate: false },
    client: {
      apiKey: 'rpa_UPSTREAMCALLSBENCH0123456789ABCDEFGHIJ',
      restUrl: 'http://127.0.0.1:9/v2',
      graphqlUrl: 'http://127.0.0.1:9/graphql',
      maxRetries: 0,
      fetch: (input) => {
        if (!String(input).includes('/pods/light')) heavyCalls++;
        return new Promise((resolve) => setTimeout(() => resolve(Response.json({ error: 'not found' }, { status: 404 })), upstreamMs));
      },
    },
  });
  const failures: Failures = {};
  const ask = async (token: string, query: string) => {
    const response = await gateway.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query }) }));
    await response.text();
    if (response.status !== 200) countFailure(failures, { name: `HTTP ${response.status}`, message: token === LIGHT ? 'the one-call query' : 'a heavy document' });
  };
  let n = 0;
  const heavyDocument = () => `{ ${Array.from({ length: 25 }, (_, i) => `p${i}: pod(input: { podId: "heavy-${n}-${i}" }) { id }`).join(' ')} }`;
  const light = '{ pod(input: { podId: "light" }) { id } }';
  const timed = async () => {
    const started = performance.now();
    await ask(LIGHT, light);
    return performance.now() - started;
  };
  const samples = quick ? 8 : 20;
  const alone: number[] = [];
  for (let i = 0; i < 5; i++) alone.push(await timed());
  let running = true;
  const heavy = async () => {
    while (running) {
      n++;
      await ask(HEAVY, heavyDocument());
    }
  };
  // The heavy token's 4 documents (its maxInFlight), each followed at once by the next.
  const workers = Array.from({ length: 4 }, heavy);
  await new Promise((resolve) => setTimeout(resolve, upstreamMs * 3));
  const loaded: number[] = [];
  for (let i = 0; i < samples; i++) {
    loaded.push(await timed());
    // Off the beat of the heavy documents' rounds.
    await new Promise((resolve) => setTimeout(resolve, upstreamMs * 0.37));
  }
  running = false;
  await Promise.all(workers);
  return { upstreamMs, aloneMs: median(alone), loadedMs: loaded, medianMs: median(loaded), maxMs: Math.max(...loaded), heavyCalls, failures };
}

export async function measureUpstreamCalls(quick: boolean): Promise<UpstreamCallFigures> {
  return { counts: await countDocuments(), wait: await measureWait(quick) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await measureUpstreamCalls(process.argv.includes('--quick')), null, 1));
}
