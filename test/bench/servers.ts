// Servers for `npm run bench`, each in its own process (pinned to its own core when taskset is
// there), so the client's CPU and memory are measured alone. Prints one JSON line once listening:
// `{ "url": … }` for the stub, the emulator's client options for the emulator.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';
import { DEFAULT_SERVERLESS_LIMITS } from '../../src/emulator/serverless-limits.js';
import { podFixture } from '../fixtures.js';
import { startLimitsServer } from './limits-server.js';

export const BENCH_KEY = 'rpa_bench_key';
const [mode = 'stub', scaleArg = '1'] = process.argv.slice(2);

type Schema = Record<string, unknown>;

/** The smallest value a JSON Schema of the REST v2 contract accepts: required fields only. */
function exampleOf(schema: Schema, schemas: Record<string, Schema>, depth = 0): unknown {
  if (depth > 12) return null;
  if (typeof schema.$ref === 'string') return exampleOf(schemas[schema.$ref.split('/').pop()!]!, schemas, depth + 1);
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...(schema.allOf as Schema[]).map((part) => exampleOf(part, schemas, depth + 1)));
  }
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    const options = (schema.anyOf ?? schema.oneOf) as Schema[];
    return exampleOf(options.find((o) => o.type === 'null') ?? options[0]!, schemas, depth + 1);
  }
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = Array.isArray(schema.type) ? (schema.type.includes('null') ? 'null' : schema.type[0]) : schema.type;
  switch (type) {
    case 'null':
      return null;
    case 'string':
      return schema.format === 'date-time' ? '2026-01-01T00:00:00Z' : 'x';
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    default: {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const out: Record<string, unknown> = {};
      for (const name of (schema.required ?? []) as string[]) out[name] = properties[name] ? exampleOf(properties[name], schemas, depth + 1) : 'x';
      return out;
    }
  }
}

if (mode === 'stub') {
  // Canned answers, as fast as a server can be, so the client's own cost shows.
  const contract = JSON.parse(readFileSync(new URL('../../src/contracts/rest-v2.openapi.json', import.meta.url), 'utf8')) as {
    components: { schemas: Record<string, Schema> };
  };
  const restPod = { ...(exampleOf(contract.components.schemas.Pod!, contract.components.schemas) as object), id: 'pod-abc123', name: 'trainer', status: 'RUNNING' };
  const graphql = JSON.stringify({ data: { pod: podFixture() } });
  const rest = JSON.stringify(restPod);
  const status = JSON.stringify({ id: 'job-1', status: 'COMPLETED', output: { text: 'hi' }, executionTime: 12, delayTime: 3 });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '';
      // Lenient on prefixes, so the bench keeps working whichever base path a surface settles on.
      const body = path.startsWith('/graphql') ? graphql : path.includes('/status/') ? status : path.includes('/pods/') ? rest : undefined;
      if (body === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
} else if (mode === 'limits') {
  // Issue 38: the platform's documented serverless limits and nothing else (limits-server.ts);
  // every answer takes `scaleArg` ms.
  const limits = { run: DEFAULT_SERVERLESS_LIMITS.run, status: DEFAULT_SERVERLESS_LIMITS.status };
  const server = await startLimitsServer({ apiKey: BENCH_KEY, limits, latencyMs: Number(scaleArg) });
  console.log(JSON.stringify({ url: server.url, options: server.options, limits }));
} else if (mode === 'pages') {
  // An account of `scaleArg` pods (CPU pods: no GPU stock to run out of) for the pagination row.
  const emulator = createEmulator({ apiKeys: [BENCH_KEY], restRateLimitPerMinute: 1_000_000 });
  const { restUrl } = emulator.clientOptions(BENCH_KEY);
  for (let i = 0; i < Number(scaleArg); i++) {
    const res = await emulator.fetch(
      new Request(`${restUrl}/pods`, { method: 'POST', headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: `p${i}`, image: 'img:1', cpu: { id: 'cpu3c', vcpuCount: 2 } }) }),
    );
    if (res.status !== 201) throw new Error(`seeding pod ${i}: HTTP ${res.status}`);
  }
  const server = await listen(emulator, { host: '127.0.0.1' });
  const { fetch: _inProcess, ...options } = server.clientOptions(BENCH_KEY) as ReturnType<typeof server.clientOptions> & { fetch?: unknown };
  console.log(JSON.stringify({ url: server.url, options }));
} else {
  // The emulator as production runs it: its limits are on by default.
  const emulator = createEmulator({ apiKeys: [BENCH_KEY], timeScale: Number(scaleArg) });
  // The `sleep` endpoint runs `ms` on the emulator's clock and reports when it finished, on the
  // wall clock both processes share.
  emulator.handlers.register('sleep', async (input, ctx) => {
    await ctx.sleep((input as { ms: number }).ms);
    return { finishedAt: Date.now() };
  });
  const server = await listen(emulator, { host: '127.0.0.1' });
  const { fetch: _inProcess, ...options } = server.clientOptions(BENCH_KEY) as ReturnType<typeof server.clientOptions> & { fetch?: unknown };
  // The limits in force (the defaults: no override above), so the bench computes its minimum from them.
  console.log(JSON.stringify({ url: server.url, options, limits: DEFAULT_SERVERLESS_LIMITS, timeScale: Number(scaleArg) }));
}
