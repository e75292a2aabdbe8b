// Prometheus metrics (prom-client), as an observer of the pipeline, served at `/metrics`. Node
// only, and loaded only by the command line's gateway: the client entries never import it.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { GatewayObserver } from '../pipeline.js';
import { operationLabels } from './operation-label.js';

const PREFIX = 'runpod_gql_gateway_';

export interface GatewayMetrics {
  readonly observer: GatewayObserver;
  /** The `/metrics` answer, in Prometheus' text format. */
  respond(): Promise<Response>;
  /** Sets a 0/1 gauge of a condition `/readyz` reflects (`redis_up`, `upstream_key_accepted`). */
  setCondition(name: 'redis_up' | 'upstream_key_accepted', up: boolean): void;
  readonly registry: Registry;
}

export function createGatewayMetrics(): GatewayMetrics {
  const registry = new Registry();
  const label = operationLabels();
  const requests = new Counter({ name: `${PREFIX}requests_total`, help: 'Requests answered, by status and operation', labelNames: ['status', 'operation'], registers: [registry] });
  const duration = new Histogram({
    name: `${PREFIX}request_duration_seconds`,
    help: 'Time from arrival to answer, by operation',
    labelNames: ['operation'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const upstream = new Counter({ name: `${PREFIX}upstream_calls_total`, help: "Calls to RunPod, by the status RunPod answered", labelNames: ['status'], registers: [registry] });
  const limited = new Counter({ name: `${PREFIX}rate_limited_total`, help: 'Requests refused with 429, by cause (RATE_LIMITED, TOO_MANY_IN_FLIGHT)', labelNames: ['cause'], registers: [registry] });
  const inFlight = new Gauge({ name: `${PREFIX}documents_in_flight`, help: 'GraphQL requests being answered now', registers: [registry] });
  const cache = new Counter({ name: `${PREFIX}cache_total`, help: 'Answers a response cache was asked for, by result (hit, miss)', labelNames: ['result'], registers: [registry] });
  const conditions = new Gauge({ name: `${PREFIX}condition`, help: 'Conditions /readyz reflects: 1 well, 0 not (redis_up, upstream_key_accepted)', labelNames: ['condition'], registers: [registry] });
  cache.inc({ result: 'hit' }, 0);
  cache.inc({ result: 'miss' }, 0);
  const isGraphql = (path: string) => path === '/graphql';
  return {
    registry,
    observer: {
      onRequest(context) {
        if (isGraphql(context.url.pathname)) inFlight.inc();
      },
      onUpstream(_context, status) {
        upstream.inc({ status: String(status) });
      },
      onResponse(context, response) {
        if (!isGraphql(context.url.pathname)) return;
        inFlight.dec();
        const operation = label(context.operation?.name?.value, context.operation !== undefined);
        requests.inc({ status: String(response.status), operation });
        duration.observe({ operation }, (performance.now() - context.startedAt) / 1000);
        if (response.status === 429) limited.inc({ cause: context.refusedFor ?? 'unknown' });
        if (context.cache) cache.inc({ result: context.cache });
      },
    },
    async respond() {
      return new Response(await registry.metrics(), { status: 200, headers: { 'content-type': registry.contentType, 'cache-control': 'no-store' } });
    },
    setCondition(name, up) {
      conditions.set({ condition: name }, up ? 1 : 0);
    },
  };
}
