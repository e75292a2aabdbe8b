// Stage "host": the Host check against DNS rebinding, the route, the page's Origin (and its
// preflight), the method and the media type. Everything about the request's envelope, before anyone
// is authenticated.
import type { CorsPolicy } from '../cors.js';
import type { HostPolicy } from '../host-check.js';
import type { Stage } from '../pipeline.js';
import { GRAPHQL_RESPONSE, negotiate, Refusal } from '../protocol.js';
import { plain } from './probes.js';

export function hostStage(hosts: HostPolicy, cors: CorsPolicy): Stage {
  return {
    name: 'host',
    run(context, next) {
      const { request, url } = context;
      const wrongHost = hosts.refuse(request, url);
      if (wrongHost) throw wrongHost;
      if (url.pathname !== '/graphql') return plain(404, 'not found: the gateway serves /graphql, /healthz and /readyz');
      const origin = request.headers.get('origin');
      const allowed = cors.allowed(origin, (o) => hosts.isOwnOrigin(o, request));
      if (origin !== null && allowed === undefined) cors.refused(origin);
      if (request.method === 'OPTIONS') return cors.preflight(request, allowed);
      context.origin = allowed;
      const media = negotiate(request.headers.get('accept'));
      if (origin !== null && allowed === undefined) throw new Refusal(403, 'this origin may not call the gateway: the gateway allows it with --cors-origin', 'ORIGIN_DENIED');
      if (request.method !== 'GET' && request.method !== 'POST') throw new Refusal(405, 'the gateway accepts GET and POST', 'METHOD_NOT_ALLOWED', { allow: 'GET, POST, OPTIONS' });
      if (!media) throw new Refusal(406, `the gateway answers ${GRAPHQL_RESPONSE} or application/json`, 'NOT_ACCEPTABLE');
      context.media = media;
      return next();
    },
  };
}
