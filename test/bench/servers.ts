// Servers for `npm run bench`, each in its own process so the client's CPU and memory are
// measured alone. Prints one JSON line `{ "url": … }` once listening on 127.0.0.1.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEmulator } from '../../src/emulator/index.js';
import { listen } from '../../src/emulator/node.js';
import { podFixture } from '../fixtures.js';

export const BENCH_KEY = 'rpa_bench_key';
const [mode = 'stub', scaleArg = '1'] = process.argv.slice(2);

if (mode === 'stub') {
  // Canned answers, as fast as a server can be, so the client's own cost shows.
  const graphql = JSON.stringify({ data: { pod: podFixture() } });
  const rest = JSON.stringify({ id: 'pod-abc123', name: 'trainer', image: 'img', desiredStatus: 'RUNNING', costPerHr: '0.69' });
  const status = JSON.stringify({ id: 'job-1', status: 'COMPLETED', output: { text: 'hi' }, executionTime: 12, delayTime: 3 });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const body = req.url?.startsWith('/graphql') ? graphql : req.url?.startsWith('/v1/') ? rest : status;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
} else {
  const emulator = createEmulator({ apiKeys: [BENCH_KEY], timeScale: Number(scaleArg), legacyRestV1: true });
  // A worker that runs `ms` (emulator time) and reports when it finished, on the wall clock.
  // The bench creates an endpoint named `timed` through REST, which runs it.
  emulator.handlers.register('timed', async (input, ctx) => {
    await ctx.sleep((input as { ms: number }).ms);
    return { finishedAt: Date.now() };
  });
  const server = await listen(emulator, { host: '127.0.0.1' });
  console.log(JSON.stringify({ url: server.url }));
}
