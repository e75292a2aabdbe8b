// The server of the bench's `fan-out-limits` row (issue 38): the platform's documented per-endpoint
// serverless limits and nothing else, so a fan-out is measured against what production enforces
// rather than against the emulator's reading of it. In the strictest reading of the docs: at most
// `requests` arrivals in ANY window of `intervalMs` (a sliding window, where the emulator refills
// a token bucket evenly) and at most `concurrency` requests in flight per route group, with
// `/status-sync` counted against `/status`. Beyond either: 429, as the platform answers. Every
// answer takes `latencyMs` (a platform's round trip), so the concurrency cap is reached, not only
// the rate. Jobs complete at once: `/run` answers IN_QUEUE and the first status COMPLETED with the
// input as output.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerlessRouteLimit } from '../../src/emulator/serverless-limits.js';

export interface LimitsServerOptions {
  /** The API key the server accepts as a Bearer token. */
  readonly apiKey: string;
  readonly limits: { readonly run: ServerlessRouteLimit; readonly status: ServerlessRouteLimit };
  /** What each allowed answer takes, in milliseconds of real time. */
  readonly latencyMs: number;
  /** The clock arrivals are counted on (tests pass their own). @default performance.now */
  readonly now?: () => number;
}

export interface LimitsServer {
  readonly url: string;
  /** The client options for it: `serverlessUrl` and the key. */
  readonly options: { readonly serverlessUrl: string; readonly apiKey: string };
  /** 429 answers so far, per route group. */
  readonly refused: { run: number; status: number };
  close(): Promise<void>;
}

interface Group {
  readonly limit: ServerlessRouteLimit;
  /** The last `requests` arrival times, a ring: the oldest is at `next`. */
  readonly arrivals: Float64Array;
  next: number;
  inFlight: number;
}

export async function startLimitsServer({ apiKey, limits, latencyMs, now = () => performance.now() }: LimitsServerOptions): Promise<LimitsServer> {
  const group = (limit: ServerlessRouteLimit): Group => ({ limit, arrivals: new Float64Array(limit.requests).fill(-Infinity), next: 0, inFlight: 0 });
  const groups = { run: group(limits.run), status: group(limits.status) };
  const refused = { run: 0, status: 0 };
  const jobs = new Map<string, unknown>();
  let lastId = 0;
  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      // /v2/{endpointId}/run, /v2/{endpointId}/status-sync/{jobId}, /v2/{endpointId}/status/{jobId}
      const [, , , route, id] = (req.url ?? '').split('?')[0]!.split('/');
      const name = route === 'run' ? 'run' : route === 'status' || route === 'status-sync' ? 'status' : undefined;
      if (!name) return send(res, 404, { error: 'not found' });
      if (req.headers.authorization !== `Bearer ${apiKey}`) return send(res, 401, { error: 'unauthorized' });
      const g = groups[name];
      const at = now();
      // The arrival `requests` places back must be a whole window old; refused requests do not count.
      if (g.arrivals[g.next]! > at - (g.limit.intervalMs ?? 10_000) || (g.limit.concurrency !== undefined && g.inFlight >= g.limit.concurrency)) {
        refused[name] += 1;
        return send(res, 429, { error: 'rate limit exceeded' });
      }
      g.arrivals[g.next] = at;
      g.next = (g.next + 1) % g.arrivals.length;
      g.inFlight += 1;
      setTimeout(() => {
        g.inFlight -= 1;
        if (name === 'run') {
          const jobId = `job-${++lastId}`;
          let input: unknown;
          try {
            input = (JSON.parse(Buffer.concat(chunks).toString() || '{}') as { input?: unknown }).input;
          } catch {
            return send(res, 400, { error: 'invalid JSON' });
          }
          jobs.set(jobId, input);
          return send(res, 200, { id: jobId, status: 'IN_QUEUE' });
        }
        if (!jobs.has(id!)) return send(res, 404, { error: 'job not found' });
        send(res, 200, { id, status: 'COMPLETED', output: jobs.get(id!), delayTime: 1, executionTime: 1 });
      }, latencyMs);
    });
  });
  server.keepAliveTimeout = 65_000;
  // A fan-out opens hundreds of connections at once: Node's backlog of 511 would have some reset.
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    options: { serverlessUrl: `${url}/v2`, apiKey },
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
