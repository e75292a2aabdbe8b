// REST v1 answers 410 Gone since 2026-11-15 and the package has no client for it. A request that
// still reaches a v1 URL (a `restUrl` left at `https://rest.runpod.io/v1`, a raw call) ends in an
// ApiRetiredError whose `replacement` names the REST v2 call that does the same.

/** v1's resource segment → the `rp.rest` resource that replaces it. */
const RESOURCE_V2: Readonly<Record<string, string>> = {
  pods: 'pods',
  endpoints: 'endpoints',
  templates: 'templates',
  networkvolumes: 'networkVolumes',
  containerregistryauth: 'registries',
};

const POD_ACTIONS = new Set(['start', 'stop', 'restart']);

/** What a v1 request with no route of its own in v2 is told to use. */
const REST_V2 = 'rp.rest (REST v2, https://rest.runpod.io/v2)';

/**
 * The REST v2 call that replaces the v1 request `method url`, e.g. `POST …/v1/pods/abc/start` →
 * `rp.rest.pods.start(id)`; undefined when `url`'s path does not start with `/v1/`.
 */
export function restV1Replacement(method: string, url: string): string | undefined {
  let segments: string[];
  try {
    segments = new URL(url).pathname.split('/').filter(Boolean);
  } catch {
    return undefined;
  }
  const [v1, resource = '', param, suffix, ...more] = segments;
  if (v1 !== 'v1') return undefined;
  if (resource === 'billing') {
    const kind = param === undefined || param === 'pods' ? 'pods' : param === 'endpoints' ? 'serverless' : param === 'networkvolumes' ? 'networkVolumes' : undefined;
    return kind && suffix === undefined ? `rp.rest.billing.${kind}(query)` : REST_V2;
  }
  const v2 = RESOURCE_V2[resource];
  if (!v2 || more.length > 0) return REST_V2;
  const verb = method.toUpperCase();
  if (suffix === undefined) {
    if (verb === 'POST' && !param) return `rp.rest.${v2}.create(body)`;
    if (verb === 'GET') return param ? `rp.rest.${v2}.get(id)` : `rp.rest.${v2}.list()`;
    if (verb === 'PATCH' && param) return `rp.rest.${v2}.update(id, body)`;
    if (verb === 'DELETE' && param) return `rp.rest.${v2}.delete(id)`;
    return REST_V2;
  }
  if (suffix === 'update') return `rp.rest.${v2}.update(id, body)`;
  if (resource !== 'pods') return REST_V2;
  if (suffix === 'reset') return 'rp.rest.pods.restart(id), or rp.rest.pods.stop(id) then rp.rest.pods.start(id)';
  return POD_ACTIONS.has(suffix) ? `rp.rest.pods.${suffix}(id)` : REST_V2;
}
