// One access line per request (an observer of the pipeline): JSON when the output is not a
// terminal, a short line when it is. It carries the request id, the operation, the caller's name
// and scope (never its token), the status, the duration, the upstream calls and whether a cache
// answered. Nothing in it is a secret: every field is the gateway's own, or a caller's operation
// name (a GraphQL name), bounded.
import type { GatewayContext } from '../context.js';
import type { GatewayObserver } from '../pipeline.js';
import { operationLabels } from './operation-label.js';

/** What one access line says. */
export interface AccessRecord {
  readonly time: string;
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
  readonly operation: string;
  readonly operationType: string | null;
  readonly caller: string | null;
  readonly scope: string | null;
  readonly upstreamCalls: number;
  readonly upstreamStatuses: readonly number[];
  readonly cache: 'hit' | 'miss' | null;
  readonly refused: string | null;
}

export function accessRecord(context: GatewayContext, status: number, label: (name: string | undefined, known: boolean) => string): AccessRecord {
  return {
    time: new Date().toISOString(),
    requestId: context.ids.gateway,
    method: context.request.method,
    path: context.url.pathname,
    status,
    durationMs: Math.round((performance.now() - context.startedAt) * 10) / 10,
    operation: label(context.operation?.name?.value, context.operation !== undefined),
    operationType: context.operation?.operation ?? null,
    caller: context.caller?.name ?? null,
    scope: context.caller?.scope ?? null,
    upstreamCalls: context.upstream.calls,
    upstreamStatuses: context.upstream.statuses,
    cache: context.cache ?? null,
    refused: context.refusedFor ?? null,
  };
}

/** The access log: one line per request on `write` (probes left out unless `probes`). */
export function accessLog(write: (line: string) => void, json: boolean, { probes = false } = {}): GatewayObserver {
  const label = operationLabels();
  return {
    onResponse(context, response) {
      const path = context.url.pathname;
      if (!probes && (path === '/healthz' || path === '/readyz' || path === '/metrics')) return;
      const r = accessRecord(context, response.status, label);
      if (json) return write(JSON.stringify(r));
      const cache = r.cache ? ` cache=${r.cache}` : '';
      const refused = r.refused ? ` refused=${r.refused}` : '';
      write(`${r.time} ${r.status} ${r.method} ${r.path} ${r.operation} ${r.caller ?? '-'}/${r.scope ?? '-'} ${r.durationMs}ms upstream=${r.upstreamCalls}${cache}${refused} ${r.requestId}`);
    },
  };
}
