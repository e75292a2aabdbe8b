// Stage "probes": `/healthz` and `/readyz` answer whatever the Host, and reveal nothing (a load
// balancer names them by the pod's address). Ready means: persisted documents indexed, and not
// draining; an observer of the upstream (a refused key, Redis away) may hold it too.
import type { Stage } from '../pipeline.js';

/** What `/readyz` asks: undefined when ready, else the one word it answers 503 with. */
export type Readiness = () => string | undefined;

export function probesStage(readiness: Readiness): Stage {
  return {
    name: 'probes',
    run(context, next) {
      const path = context.url.pathname;
      if (path === '/healthz') return plain(200, 'ok');
      if (path === '/readyz') {
        const not = readiness();
        return not === undefined ? plain(200, 'ready') : plain(503, not);
      }
      return next();
    },
  };
}

export function plain(status: number, text: string): Response {
  return new Response(text, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } });
}
