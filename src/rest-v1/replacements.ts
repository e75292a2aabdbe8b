// Where each v1 route went in REST v2: named in the ApiRetiredError a 410 from v1 becomes.

const RESOURCE_V2: Readonly<Record<string, string>> = {
  pods: 'pods',
  endpoints: 'endpoints',
  templates: 'templates',
  networkvolumes: 'networkVolumes',
  containerregistryauth: 'registries',
};

const POD_ACTIONS = new Set(['start', 'stop', 'restart']);

/**
 * The v2 method that replaces a v1 route given as `METHOD /path/{param}/…`, e.g.
 * `POST /pods/{podId}/start` → `rp.rest.pods.start(id)`.
 */
export function v2ReplacementFor(route: string): string {
  const [method = '', path = ''] = route.split(' ');
  const [, resource = '', param, suffix] = path.split('/');
  if (resource === 'billing') {
    const kind = param === 'endpoints' ? 'serverless' : param === 'networkvolumes' ? 'networkVolumes' : 'pods';
    return `rp.rest.billing.${kind}(query)`;
  }
  const v2 = RESOURCE_V2[resource];
  if (!v2) return 'rp.rest (REST v2)';
  if (resource === 'pods' && suffix === 'reset') return 'rp.rest.pods.restart(id), or rp.rest.pods.stop(id) then rp.rest.pods.start(id)';
  if (resource === 'pods' && suffix && POD_ACTIONS.has(suffix)) return `rp.rest.pods.${suffix}(id)`;
  if (suffix === 'update' || method === 'PATCH') return `rp.rest.${v2}.update(id, body)`;
  if (method === 'DELETE') return `rp.rest.${v2}.delete(id)`;
  if (method === 'POST') return `rp.rest.${v2}.create(body)`;
  return param ? `rp.rest.${v2}.get(id)` : `rp.rest.${v2}.list()`;
}
