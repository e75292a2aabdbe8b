import { Hono } from 'hono';
import { MS_PER_HOUR } from '../catalog.js';
import type { Account, BillingSegment } from '../platform.js';
import type { EmulatorEnv } from './context.js';
import { accountOf, iso, stateOf, type RestV2Deps, type V2Context } from './context.js';
import { problem } from './problem.js';

const BUCKET_MS: Record<string, number> = { hour: MS_PER_HOUR, day: 24 * MS_PER_HOUR, week: 7 * 24 * MS_PER_HOUR, month: 30 * 24 * MS_PER_HOUR, year: 365 * 24 * MS_PER_HOUR };
const round = (n: number) => Math.round(n * 1e6) / 1e6;

interface BillingWindow {
  start: number;
  end: number;
  bucket: number;
  bucketSize: string;
}

/** The resolved window: `startTime`/`endTime` snapped to buckets, or the last `lastN` buckets up to now. */
function billingWindow(c: V2Context, now: number): BillingWindow {
  const bucketSize = c.req.query('bucketSize') ?? 'day';
  const bucket = BUCKET_MS[bucketSize];
  if (!bucket) throw problem(400, `Query parameter bucketSize must be one of ${Object.keys(BUCKET_MS).join(', ')}.`);
  const snap = (t: number) => Math.floor(t / bucket) * bucket;
  const time = (name: string) => {
    const raw = c.req.query(name);
    if (raw === undefined) return undefined;
    const t = Date.parse(raw);
    if (Number.isNaN(t)) throw problem(400, `Query parameter ${name} must be an RFC 3339 date-time.`);
    return t;
  };
  const startTime = time('startTime');
  const endTime = time('endTime');
  const lastNText = c.req.query('lastN');
  if (lastNText !== undefined) {
    const lastN = Number(lastNText);
    if (!Number.isInteger(lastN) || lastN < 1) throw problem(400, 'Query parameter lastN must be a positive integer.');
    if (startTime !== undefined || endTime !== undefined) throw problem(400, 'lastN cannot be combined with startTime or endTime.');
    const end = snap(now) + bucket;
    return { start: end - lastN * bucket, end, bucket, bucketSize };
  }
  const end = endTime ?? snap(now) + bucket;
  const start = snap(startTime ?? now - 30 * 24 * MS_PER_HOUR);
  if (start >= end) throw problem(400, 'startTime must be before endTime.');
  return { start, end, bucket, bucketSize };
}

/** Charges of one segment, split at bucket edges, inside the window. */
function spread(s: BillingSegment, w: BillingWindow, now: number, add: (bucketStart: number, amount: number) => void): void {
  const from = Math.max(s.from, w.start);
  const to = Math.min(s.to ?? now, w.end, now);
  for (let t = from; t < to; ) {
    const bucketStart = Math.floor(t / w.bucket) * w.bucket;
    const next = Math.min(bucketStart + w.bucket, to);
    add(bucketStart, (s.ratePerHour * (next - t)) / MS_PER_HOUR);
    t = next;
  }
}

type Amounts = Record<string, number>;

/** Accumulates amounts per (bucket, key). */
class Ledger {
  private readonly rows = new Map<string, { bucket: number; key: string; amounts: Amounts }>();
  constructor(private readonly fields: readonly string[]) {}
  add(bucket: number, key: string, field: string, amount: number): void {
    const id = `${bucket}|${key}`;
    let row = this.rows.get(id);
    if (!row) this.rows.set(id, (row = { bucket, key, amounts: Object.fromEntries(this.fields.map((f) => [f, 0])) }));
    row.amounts[field] = (row.amounts[field] ?? 0) + amount;
  }
  /** Records sorted by time then key, with `totalAmount` and the window's totals. */
  envelope(w: BillingWindow, keyName: string | undefined, query: Record<string, unknown>, uniqueName?: string) {
    const rows = [...this.rows.values()].sort((a, b) => a.bucket - b.bucket || a.key.localeCompare(b.key));
    const totals: Amounts = Object.fromEntries([['totalAmount', 0], ...this.fields.map((f) => [f, 0])]);
    const records = rows.map((r) => {
      const total = Object.values(r.amounts).reduce((a, b) => a + b, 0);
      totals.totalAmount! += total;
      for (const f of this.fields) totals[f]! += r.amounts[f] ?? 0;
      return {
        startTime: iso(r.bucket),
        endTime: iso(r.bucket + w.bucket),
        ...(keyName && { [keyName]: r.key }),
        totalAmount: round(total),
        ...Object.fromEntries(this.fields.map((f) => [f, round(r.amounts[f] ?? 0)])),
      };
    });
    const metadata: Record<string, unknown> = {
      query: { startTime: iso(w.start), endTime: iso(w.end), bucketSize: w.bucketSize, ...query },
      recordCount: records.length,
      totals: Object.fromEntries(Object.entries(totals).map(([k, v]) => [k, round(v)])),
    };
    if (uniqueName) metadata[uniqueName] = new Set(rows.map((r) => r.key)).size;
    return { records, metadata };
  }
}

function clusterOfPod(account: Account): Map<string, string> {
  const out = new Map<string, string>();
  for (const cluster of stateOf(account).clusters.values()) for (const podId of cluster.podIds) out.set(podId, cluster.id);
  return out;
}

const podField = (s: BillingSegment) => (s.kind === 'volume' ? 'diskAmount' : s.gpuTypeId === 'CPU' ? 'cpuAmount' : 'gpuAmount');

export function billingRoutes(deps: RestV2Deps): Hono<EmulatorEnv> {
  const app = new Hono<EmulatorEnv>();
  const now = () => deps.platform.clock.now();

  app.get('/billing', (c) => {
    const w = billingWindow(c, now());
    const account = accountOf(c);
    const clusterOf = clusterOfPod(account);
    const fields = ['podGpuAmount', 'podCpuAmount', 'podDiskAmount', 'serverlessGpuAmount', 'serverlessCpuAmount', 'serverlessDiskAmount', 'serverlessFeeAmount', 'storageStandardAmount', 'storageHighPerformanceAmount', 'endpointAmount', 'clusterGpuAmount', 'clusterDiskAmount', 'clusterNetworkingAmount'];
    const ledger = new Ledger(fields);
    const volumeTypes = stateOf(account).volumeTypes;
    for (const s of account.segments) {
      const inCluster = s.podId !== undefined && clusterOf.has(s.podId);
      const highPerformance = s.networkVolumeId !== undefined && volumeTypes.get(s.networkVolumeId) === 'HIGH_PERFORMANCE';
      const field =
        s.kind === 'network-volume' ? (highPerformance ? 'storageHighPerformanceAmount' : 'storageStandardAmount') : inCluster ? (s.kind === 'volume' ? 'clusterDiskAmount' : 'clusterGpuAmount') : s.kind === 'volume' ? 'podDiskAmount' : s.gpuTypeId === 'CPU' ? 'podCpuAmount' : 'podGpuAmount';
      spread(s, w, now(), (bucket, amount) => ledger.add(bucket, '', field, amount));
    }
    for (const charge of account.endpointCharges) {
      if (charge.at >= w.start && charge.at < w.end) ledger.add(Math.floor(charge.at / w.bucket) * w.bucket, '', charge.public ? 'endpointAmount' : 'serverlessGpuAmount', charge.amount);
    }
    return c.json(ledger.envelope(w, undefined, {}));
  });

  app.get('/billing/pods', (c) => {
    const w = billingWindow(c, now());
    const podId = c.req.query('podId');
    const clusterOf = clusterOfPod(accountOf(c));
    const ledger = new Ledger(['gpuAmount', 'cpuAmount', 'diskAmount']);
    for (const s of accountOf(c).segments) {
      if ((s.kind !== 'gpu' && s.kind !== 'volume') || !s.podId || clusterOf.has(s.podId) || (podId && s.podId !== podId)) continue;
      spread(s, w, now(), (bucket, amount) => ledger.add(bucket, s.podId!, podField(s), amount));
    }
    return c.json(ledger.envelope(w, 'podId', podId ? { podId } : {}, 'uniquePodCount'));
  });

  app.get('/billing/serverless', (c) => {
    const w = billingWindow(c, now());
    const serverlessId = c.req.query('serverlessId');
    const ledger = new Ledger(['gpuAmount', 'cpuAmount', 'diskAmount', 'feeAmount']);
    for (const charge of accountOf(c).endpointCharges) {
      if (charge.public || charge.at < w.start || charge.at >= w.end || (serverlessId && charge.endpointId !== serverlessId)) continue;
      ledger.add(Math.floor(charge.at / w.bucket) * w.bucket, charge.endpointId, 'gpuAmount', charge.amount);
    }
    return c.json(ledger.envelope(w, 'serverlessId', serverlessId ? { serverlessId } : {}, 'uniqueServerlessCount'));
  });

  // Public endpoints (the platform's hosted models; here, the handlers called by name): totals only.
  app.get('/billing/endpoints', (c) => {
    const w = billingWindow(c, now());
    const ledger = new Ledger([]);
    for (const charge of accountOf(c).endpointCharges) {
      if (charge.public && charge.at >= w.start && charge.at < w.end) ledger.add(Math.floor(charge.at / w.bucket) * w.bucket, '', 'amount', charge.amount);
    }
    return c.json(ledger.envelope(w, undefined, {}));
  });

  app.get('/billing/network-volumes', (c) => {
    const w = billingWindow(c, now());
    const networkVolumeId = c.req.query('networkVolumeId');
    const ledger = new Ledger(['standardAmount', 'highPerformanceAmount']);
    const volumeTypes = stateOf(accountOf(c)).volumeTypes;
    for (const s of accountOf(c).segments) {
      if (s.kind !== 'network-volume' || !s.networkVolumeId || (networkVolumeId && s.networkVolumeId !== networkVolumeId)) continue;
      const field = volumeTypes.get(s.networkVolumeId) === 'HIGH_PERFORMANCE' ? 'highPerformanceAmount' : 'standardAmount';
      spread(s, w, now(), (bucket, amount) => ledger.add(bucket, s.networkVolumeId!, field, amount));
    }
    return c.json(ledger.envelope(w, 'networkVolumeId', networkVolumeId ? { networkVolumeId } : {}, 'uniqueNetworkVolumeCount'));
  });

  app.get('/billing/clusters', (c) => {
    const w = billingWindow(c, now());
    const clusterId = c.req.query('clusterId');
    const clusterOf = clusterOfPod(accountOf(c));
    const ledger = new Ledger(['gpuAmount', 'diskAmount', 'networkingAmount']);
    for (const s of accountOf(c).segments) {
      const cluster = s.podId ? clusterOf.get(s.podId) : undefined;
      if (!cluster || (clusterId && cluster !== clusterId)) continue;
      spread(s, w, now(), (bucket, amount) => ledger.add(bucket, cluster, s.kind === 'volume' ? 'diskAmount' : 'gpuAmount', amount));
    }
    return c.json(ledger.envelope(w, 'clusterId', clusterId ? { clusterId } : {}, 'uniqueClusterCount'));
  });

  return app;
}
