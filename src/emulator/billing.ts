import { MS_PER_HOUR } from './catalog.js';
import type { Account, BillingSegment } from './platform.js';

const BUCKET_MS: Record<string, number> = {
  hour: MS_PER_HOUR,
  day: 24 * MS_PER_HOUR,
  week: 7 * 24 * MS_PER_HOUR,
  month: 30 * 24 * MS_PER_HOUR,
  year: 365 * 24 * MS_PER_HOUR,
};

export interface BillingQuery {
  bucketSize?: string | undefined;
  startTime?: string | undefined;
  endTime?: string | undefined;
  grouping?: string | undefined;
  podId?: string | undefined;
  endpointId?: string | undefined;
  gpuTypeId?: string[] | undefined;
}

interface Row {
  time: number;
  group: Record<string, string | undefined>;
  amount: number;
  timeBilledMs: number;
  diskSpaceBilledGb: number;
}

function window(query: BillingQuery, now: number): { start: number; end: number; bucket: number } {
  const bucket = BUCKET_MS[query.bucketSize ?? 'day'] ?? BUCKET_MS.day!;
  const end = query.endTime ? Date.parse(query.endTime) : now;
  const start = query.startTime ? Date.parse(query.startTime) : end - 30 * 24 * MS_PER_HOUR;
  return { start, end: Math.min(end, now), bucket };
}

function accumulate(rows: Map<string, Row>, time: number, group: Record<string, string | undefined>, add: Partial<Row>): void {
  const key = `${time}|${JSON.stringify(group)}`;
  const row = rows.get(key) ?? { time, group, amount: 0, timeBilledMs: 0, diskSpaceBilledGb: 0 };
  row.amount += add.amount ?? 0;
  row.timeBilledMs += add.timeBilledMs ?? 0;
  row.diskSpaceBilledGb = Math.max(row.diskSpaceBilledGb, add.diskSpaceBilledGb ?? 0);
  rows.set(key, row);
}

/** Splits each segment at bucket edges and charges its rate for the time inside the window. */
function segmentRows(segments: BillingSegment[], query: BillingQuery, now: number, groupOf: (s: BillingSegment) => Record<string, string | undefined>): Row[] {
  const { start, end, bucket } = window(query, now);
  const rows = new Map<string, Row>();
  for (const s of segments) {
    const from = Math.max(s.from, start);
    const to = Math.min(s.to ?? now, end);
    for (let t = from; t < to; ) {
      const bucketStart = Math.floor(t / bucket) * bucket;
      const next = Math.min(bucketStart + bucket, to);
      const ms = next - t;
      accumulate(rows, bucketStart, groupOf(s), {
        amount: (s.ratePerHour * ms) / MS_PER_HOUR,
        timeBilledMs: s.kind === 'gpu' ? ms : 0,
        diskSpaceBilledGb: s.gb ?? 0,
      });
      t = next;
    }
  }
  return [...rows.values()].sort((a, b) => a.time - b.time);
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

export function podBilling(account: Account, query: BillingQuery, now: number): Array<Record<string, unknown>> {
  const grouping = query.grouping ?? 'gpuTypeId';
  const segments = account.segments.filter(
    (s) => (s.kind === 'gpu' || s.kind === 'volume') && (!query.podId || s.podId === query.podId) && (!query.gpuTypeId?.length || query.gpuTypeId.includes(s.gpuTypeId ?? '')),
  );
  return segmentRows(segments, query, now, (s) => (grouping === 'podId' ? { podId: s.podId } : { gpuTypeId: s.gpuTypeId })).map((r) => ({
    time: new Date(r.time).toISOString(),
    ...r.group,
    amount: round(r.amount),
    timeBilledMs: r.timeBilledMs,
    diskSpaceBilledGb: r.diskSpaceBilledGb,
  }));
}

export function networkVolumeBilling(account: Account, query: BillingQuery, now: number): Array<Record<string, unknown>> {
  const segments = account.segments.filter((s) => s.kind === 'network-volume');
  return segmentRows(segments, query, now, () => ({})).map((r) => ({
    time: new Date(r.time).toISOString(),
    amount: round(r.amount),
    diskSpaceBilledGb: r.diskSpaceBilledGb,
    highPerformanceStorageAmount: 0,
    highPerformanceStorageDiskSpaceBilledGb: 0,
  }));
}

export function endpointBilling(account: Account, query: BillingQuery, now: number): Array<Record<string, unknown>> {
  const { start, end, bucket } = window(query, now);
  const grouping = query.grouping ?? 'endpointId';
  const rows = new Map<string, Row>();
  for (const charge of account.endpointCharges) {
    if (charge.at < start || charge.at > end) continue;
    if (query.endpointId && charge.endpointId !== query.endpointId) continue;
    if (query.gpuTypeId?.length && !query.gpuTypeId.includes(charge.gpuTypeId)) continue;
    const group = { [grouping]: (charge as unknown as Record<string, string>)[grouping] };
    accumulate(rows, Math.floor(charge.at / bucket) * bucket, group, { amount: charge.amount, timeBilledMs: charge.timeBilledMs });
  }
  return [...rows.values()]
    .sort((a, b) => a.time - b.time)
    .map((r) => ({ time: new Date(r.time).toISOString(), ...r.group, amount: round(r.amount), timeBilledMs: r.timeBilledMs }));
}
