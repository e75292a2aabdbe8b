// Stage "probes": `/healthz` and `/readyz` answer whatever the Host, and reveal nothing (a load
// balancer names them by the pod's address). Ready means: persisted documents indexed, and not
// draining; an observer of the upstream (a refused key, Redis away) may hold it too.
import type { Stage } from '../pipeline.js';

/** What `/readyz` asks: undefined when ready; else not ready (503) or degraded (200), with the reason. */
export type Readiness = () => { readonly ready: boolean; readonly reason: string } | undefined;

/** The operator's own paths (`/metrics`), answered as the probes are: whatever the Host, before any caller is asked for. */
export type OperatorRoutes = Readonly<Record<string, () => Response | Promise<Response>>>;

export function probesStage(readiness: Readiness, routes: OperatorRoutes = {}): Stage {
  return {
    name: 'probes',
    run(context, next) {
      const path = context.url.pathname;
      if (path === '/healthz') return plain(200, 'ok');
      if (path === '/readyz') {
        const state = readiness();
        if (state === undefined) return plain(200, 'ready');
        return state.ready ? plain(200, `ready (degraded: ${state.reason})`) : plain(503, state.reason);
      }
      const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
      if (route && context.request.method === 'GET') return route();
      return next();
    },
  };
}

export function plain(status: number, text: string): Response {
  return new Response(text, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } });
}
