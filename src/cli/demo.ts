// `npm run demo`: a guided session against the local emulator, using only the public client.
// No account, no network: the emulator listens on 127.0.0.1 and stops at the end.
import { AbortError, createRunpodClient, JobCancelledError, transportOf, type RunpodClient } from '../index.js';
import type { PodsTransport } from '../transport/transport-choice.js';
import { createEmulator } from '../emulator/index.js';
import { listen } from '../emulator/node.js';

const tty = process.stdout.isTTY;
const bold = (s: string) => (tty ? `\x1b[1m${s}\x1b[0m` : s);
const dim = (s: string) => (tty ? `\x1b[2m${s}\x1b[0m` : s);
const step = (n: number, title: string) => console.log(`\n${bold(`${n}. ${title}`)}`);
const show = (label: string, value: unknown) => console.log(`   ${label.padEnd(22)} ${typeof value === 'string' ? value : JSON.stringify(value)}`);

function table(rows: Array<Record<string, string | number>>): void {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]) => `   ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}`;
  console.log(dim(line(columns)));
  for (const row of rows) console.log(line(columns.map((c) => String(row[c]))));
}

async function tour(rp: RunpodClient, emulator: ReturnType<typeof createEmulator>, lbUrl: string): Promise<void> {
  step(1, 'Where can I get a GPU, and what does it cost?');
  const offers = await rp.gpuTypes.offers({ gpuCount: 1 });
  show('answered over', transportOf(offers) === 'rest' ? 'REST v2 (list prices; no per-count stock)' : 'GraphQL');
  table(offers.map((o) => ({ gpu: o.displayName, vram: `${o.memoryInGb} GB`, '$/hr': o.pricePerHour.toFixed(2), stock: o.stockStatus, counts: o.availableGpuCounts?.join(',') ?? '?' })));

  step(2, 'Deploy a pod on the cheapest 24 GB+ GPU and wait until it is ready');
  const [offer] = await rp.gpuTypes.offers({ gpuCount: 1, minMemoryInGb: 24 });
  if (!offer) throw new Error('the emulator has no 24 GB offer');
  const pod = await rp.pods.deploy({
    name: 'demo-trainer',
    imageName: 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04',
    gpuTypeId: offer.gpuTypeId,
    gpuCount: 1,
    cloudType: 'ALL',
    ports: '8888/http,22/tcp',
    volumeInGb: 20,
    env: { HF_HOME: '/workspace/hf' },
  });
  show('deployed', `${pod.id} on ${offer.displayName} at $${pod.costPerHr}/hr`);
  const ready = await rp.pods.waitUntilReady(pod.id, {
    pollIntervalMs: 300,
    onProgress: ({ pod: p, elapsedMs }) => show('waiting', `${p.desiredStatus}, container ${p.runtime ? 'up' : 'starting'} (${(elapsedMs / 1000).toFixed(1)} s)`),
  });
  show('ready, ports', (ready.runtime?.ports ?? []).map((p) => `${p?.privatePort}/${p?.type} → ${p?.ip}:${p?.publicPort}`).join(', '));

  step(3, 'Stop, start, update, then terminate it');
  emulator.inspect.writeFile(pod.id, '/workspace/checkpoint.pt', 'weights');
  emulator.inspect.writeFile(pod.id, '/tmp/cache', 'scratch');
  show('stop', (await rp.pods.stop(pod.id)).desiredStatus);
  show('files after stop', emulator.inspect.files(pod.id));
  await restTour(rp, pod.id, offer.gpuTypeId);
  await serverlessTour(rp, lbUrl);
}

async function restTour(rp: RunpodClient, podId: string, gpuTypeId: string): Promise<void> {
  const pod = { id: podId };
  const offer = { gpuTypeId };
  show('start (REST v2)', (await rp.rest.pods.start(pod.id)).status);
  const updated = await rp.rest.pods.update(pod.id, { disk: 40, env: { HF_HOME: '/workspace/hf', STEP: '2' } });
  show('update (restarts it)', `disk ${updated.disk} GB, env ${JSON.stringify(updated.env)}`);
  // A log stream stays open for new lines: stop after the last five, or after a second.
  try {
    let shown = 0;
    for await (const entry of rp.rest.pods.logs(pod.id, { source: 'system', tail: 5, signal: AbortSignal.timeout(1_000) })) {
      show('log', `${entry.ts} ${entry.line}`);
      if (++shown === 5) break;
    }
  } catch (err) {
    if (!(err instanceof AbortError)) throw err;
  }
  await rp.pods.terminate(pod.id);
  show('terminate', (await rp.pods.get(pod.id)) === null ? 'gone' : 'still there?');

  step(4, 'Create a template, a network volume and a registry; read the REST v2 catalog');
  const gpus = await rp.rest.catalog.gpus({ include: ['AVAILABILITY'], product: ['POD'] });
  table(gpus.slice(0, 5).map((g) => ({ gpu: g.id, secure: `$${g.price.secure}`, community: `$${g.price.community}` })));
  const template = await rp.rest.templates.create({ name: 'demo-jupyter', image: 'runpod/pytorch:2.4.0', ports: ['8888/http'], env: { JUPYTER_PASSWORD: 'demo' } });
  const volume = await rp.rest.networkVolumes.create({ name: 'demo-data', size: 50, dataCenter: 'EU-RO-1' });
  const registry = await rp.rest.registries.create({ name: 'ghcr', username: 'demo', password: 'not-shown-back' });
  show('template', `${template.id} (${template.image})`);
  show('network volume', `${volume.id} (${volume.size} GB in ${volume.dataCenter})`);
  show('registry', registry);
  const fromTemplate = await rp.rest.pods.create({
    name: 'from-template',
    templateId: template.id,
    gpu: { id: offer.gpuTypeId, count: 1 },
    mounts: { network: [{ volumeId: volume.id, path: '/workspace' }] },
  });
  show('pod from template', `${fromTemplate.id}: ${fromTemplate.image}, ports ${fromTemplate.ports?.join(',')}`);
  await rp.rest.pods.terminate(fromTemplate.id);

  step(5, 'Read billing');
  const bills = await rp.rest.billing.pods({ bucketSize: 'hour' });
  table(bills.records.map((b) => ({ from: b.startTime, pod: b.podId, amount: `$${b.totalAmount.toFixed(6)}` })));

}

async function serverlessTour(rp: RunpodClient, lbUrl: string): Promise<void> {
  step(6, 'Serverless jobs on the emulator\'s public endpoints (echo, sleep, stream)');
  const echo = rp.endpoint<{ prompt: string }, { prompt: string }>('echo');
  const job = await echo.run({ prompt: 'hello' });
  show('run + wait', (await job.wait()).output);
  const slow = await rp.endpoint('sleep').runSync({ ms: 1_500, output: 'done after the runsync wait' }, { waitMs: 1_000, onProgress: ({ job: j }) => show('runSync polling', j.status) });
  show('runSync', slow.output);
  const streaming = await rp.endpoint('stream').run({ chunks: ['Once', 'upon', 'a', 'time'], intervalMs: 150 });
  const words: unknown[] = [];
  for await (const chunk of streaming.stream()) words.push(chunk.output);
  show('stream', words.join(' '));
  const long = await rp.endpoint('sleep').run({ ms: 60_000 });
  const waiting = long.wait();
  await long.cancel();
  try {
    await waiting;
  } catch (err) {
    show('cancel', err instanceof JobCancelledError ? `JobCancelledError for ${err.jobId}` : String(err));
  }

  step(7, 'Your own endpoint: one worker, a cold start, and a queue behind it');
  const created = await rp.rest.endpoints.create({ name: 'demo-sleep', type: 'QUEUE', image: 'my-org/sleep:1', scaling: { type: 'REQUEST_COUNT', requestCount: 1 }, workers: { min: 0, max: 1 } });
  show('created', `${created.id}, workers ${created.workers.min}–${created.workers.max}`);
  const own = rp.endpoint<{ ms: number; output: string }, string>(created.id);
  const queued = await Promise.all([1, 2, 3].map((n) => own.run({ ms: 300, output: `job ${n}` })));
  show('status after /run', (await Promise.all(queued.map(async (j) => (await j.status()).status))).join(', '));
  const health = await own.health();
  show('health', `${health.jobs.inQueue} in queue; workers ${JSON.stringify(health.workers)}`);
  for (const done of await Promise.all(queued.map((j) => j.wait({ pollIntervalMs: 100 })))) show(String(done.output), `waited ${done.delayTime} ms, ran ${done.executionTime} ms`);
  await rp.rest.endpoints.delete(created.id);

  step(8, 'A load-balanced endpoint (the first call rides out a cold start)');
  const lb = rp.loadBalanced(lbUrl);
  const started = Date.now();
  show('GET /v1/models', await lb.get('/v1/models'));
  show('cold start took', `${Date.now() - started} ms`);
  show('POST /v1/chat', await lb.post('/v1/chat', { json: { message: 'hi' } }));
}

/** `npm run demo -- --transport rest`: the same session with rp.pods and rp.gpuTypes on REST v2. */
function transportArg(args: readonly string[]): PodsTransport {
  if (args.length === 0) return 'auto';
  const [flag, value] = args[0]!.includes('=') ? args[0]!.split('=', 2) : [args[0], args[1]];
  const rest = args.slice(args[0]!.includes('=') ? 1 : 2);
  if (flag !== '--transport' || (value !== 'auto' && value !== 'graphql' && value !== 'rest') || rest.length > 0) {
    console.error('usage: npm run demo [-- --transport auto|graphql|rest]');
    process.exit(2);
  }
  return value;
}

async function main(): Promise<void> {
  const podsTransport = transportArg(process.argv.slice(2));
  const emulator = createEmulator({ podStartupMs: 1_200 });
  emulator.loadBalanced.define({
    id: 'demo-llm',
    coldStartMs: 800,
    routes: {
      'GET /v1/models': () => ({ data: ['demo-7b'] }),
      'POST /v1/chat': async (req) => ({ reply: `you said: ${((await req.json()) as { message: string }).message}` }),
    },
  });
  const server = await listen(emulator, { port: 0, host: '127.0.0.1' });
  console.log(bold('runpod-gql demo') + dim(` — against the local emulator at ${server.url} (no account, no network)${podsTransport === 'auto' ? '' : `, pods and GPU types over ${podsTransport === 'rest' ? 'REST v2' : 'GraphQL'}`}`));
  const rp = createRunpodClient({
    ...server.clientOptions(),
    podsTransport,
    onRetry: (e) => show('retrying', `${e.operation} after ${e.reason} in ${e.delayMs} ms`),
  });
  try {
    await tour(rp, emulator, server.loadBalancedUrl('demo-llm'));
    console.log(`\n${bold('Done.')} Every call above went through the public client over HTTP on 127.0.0.1.`);
  } finally {
    await server.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
