import { Hono, type Context } from 'hono';
import type { z } from 'zod';
import { endpointBilling, networkVolumeBilling, podBilling, type BillingQuery } from './billing.js';
import { badRequest, notFound } from './errors.js';
import { newId } from './ids.js';
import { ENDPOINT_DEFAULTS, type Account, type EmulatedEndpoint, type EmulatedTemplate, type Platform } from './platform.js';
import {
  describeIssues,
  endpointCreateSchema,
  endpointUpdateSchema,
  networkVolumeCreateSchema,
  networkVolumeUpdateSchema,
  podCreateSchema,
  podUpdateSchema,
  registryAuthCreateSchema,
  templateCreateSchema,
  templateUpdateSchema,
} from './rest-schemas.js';
import { restPod } from './views.js';
import type { EmulatorEnv } from './rest-v2/context.js';

type C = Context<EmulatorEnv>;

export async function readBody<S extends z.ZodType>(c: C, schema: S): Promise<z.infer<S>> {
  let json: unknown;
  try {
    json = await c.req.json();
  } catch {
    throw badRequest('request body is not valid JSON');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw badRequest(describeIssues(parsed.error));
  return parsed.data;
}

/** Boolean query flags must be `true` or `false`, as the contract types them. */
function flags(c: C, names: readonly string[]): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const name of names) {
    const value = c.req.query(name);
    if (value === undefined) continue;
    if (value !== 'true' && value !== 'false') throw badRequest(`query ${name}: must be true or false`);
    out[name] = value === 'true';
  }
  return out;
}

const BUCKETS = ['hour', 'day', 'week', 'month', 'year'];

function billingQuery(c: C, groupings: readonly string[]): BillingQuery {
  const q: BillingQuery = {
    bucketSize: c.req.query('bucketSize'),
    startTime: c.req.query('startTime'),
    endTime: c.req.query('endTime'),
    grouping: c.req.query('grouping'),
    podId: c.req.query('podId'),
    endpointId: c.req.query('endpointId'),
    gpuTypeId: c.req.queries('gpuTypeId'),
  };
  if (q.bucketSize && !BUCKETS.includes(q.bucketSize)) throw badRequest(`query bucketSize: must be one of ${BUCKETS.join(', ')}`);
  if (q.grouping && !groupings.includes(q.grouping)) throw badRequest(`query grouping: must be one of ${groupings.join(', ')}`);
  for (const name of ['startTime', 'endTime'] as const) {
    if (q[name] && Number.isNaN(Date.parse(q[name]!))) throw badRequest(`query ${name}: must be an ISO 8601 date-time`);
  }
  return q;
}

/** Picks the handler an endpoint runs: its name, else its template image's last path segment, else echo. */
export function handlerFor(name: string, template: EmulatedTemplate | undefined, handlers: ReadonlySet<string>): string {
  if (handlers.has(name)) return name;
  const image = template?.imageName.split('/').pop()?.split(':')[0];
  return image && handlers.has(image) ? image : 'echo';
}

export function restRoutes(platform: Platform, handlerNames: () => ReadonlySet<string>): Hono<EmulatorEnv> {
  const app = new Hono<EmulatorEnv>();
  const account = (c: C) => c.get('account');
  /** A registry-auth id must be the caller's own: another account's id is as unknown as a made-up one. */
  const ownRegistryAuth = <T extends { containerRegistryAuthId?: string | undefined }>(c: C, body: T): T => {
    const id = body.containerRegistryAuthId;
    if (id !== undefined && !account(c).registryAuths.has(id)) throw badRequest(`containerRegistryAuthId: no container registry auth ${id} in this account`);
    return body;
  };

  // ---- pods
  app.post('/pods', async (c) => {
    const body = ownRegistryAuth(c, await readBody(c, podCreateSchema));
    const pod = platform.deploy(account(c), { ...body, gpuTypeIds: body.gpuTypeIds ?? [] });
    return c.json(restPod(platform, pod), 201);
  });
  app.get('/pods', (c) => {
    flags(c, ['includeMachine', 'includeNetworkVolume', 'includeSavingsPlans', 'includeTemplate', 'includeWorkers']);
    const status = c.req.query('desiredStatus');
    const gpuTypeIds = c.req.queries('gpuTypeId');
    const pods = platform
      .listPods(account(c))
      .filter((p) => (!status || p.desiredStatus === status) && (!gpuTypeIds || gpuTypeIds.includes(p.gpuTypeId)))
      .filter((p) => !c.req.query('name') || p.name === c.req.query('name'))
      .filter((p) => !c.req.query('id') || p.id === c.req.query('id'));
    return c.json(pods.map((p) => restPod(platform, p)));
  });
  app.get('/pods/:podId', (c) => {
    flags(c, ['includeMachine', 'includeNetworkVolume', 'includeSavingsPlans', 'includeTemplate', 'includeWorkers']);
    const pod = platform.getPod(account(c), c.req.param('podId'));
    if (!pod) throw notFound('pod', c.req.param('podId'));
    return c.json(restPod(platform, pod));
  });
  const updatePod = async (c: C) => {
    const body = ownRegistryAuth(c, await readBody(c, podUpdateSchema));
    return c.json(restPod(platform, platform.updatePod(account(c), c.req.param('podId')!, body)));
  };
  app.patch('/pods/:podId', updatePod);
  app.post('/pods/:podId/update', updatePod);
  app.delete('/pods/:podId', (c) => {
    platform.terminatePod(account(c), c.req.param('podId'));
    return c.body(null, 204);
  });
  app.post('/pods/:podId/start', (c) => c.json(restPod(platform, platform.startPod(account(c), c.req.param('podId')))));
  app.post('/pods/:podId/stop', (c) => c.json(restPod(platform, platform.stopPod(account(c), c.req.param('podId')))));
  app.post('/pods/:podId/reset', (c) => c.json(restPod(platform, platform.resetPod(account(c), c.req.param('podId')))));
  app.post('/pods/:podId/restart', (c) => c.json(restPod(platform, platform.restartPod(account(c), c.req.param('podId')))));

  // ---- templates
  const templateView = (t: EmulatedTemplate) => ({ ...t, isRunpod: false, earned: 0, runtimeInMin: 0 });
  app.post('/templates', async (c) => {
    const body = ownRegistryAuth(c, await readBody(c, templateCreateSchema));
    const template: EmulatedTemplate = {
      id: newId(10),
      category: body.category ?? 'NVIDIA',
      containerDiskInGb: 50,
      volumeInGb: 20,
      volumeMountPath: '/workspace',
      env: {},
      ports: [],
      isPublic: false,
      isServerless: false,
      readme: '',
      dockerEntrypoint: [],
      dockerStartCmd: [],
      ...body,
    };
    account(c).templates.set(template.id, template);
    return c.json(templateView(template));
  });
  app.get('/templates', (c) => {
    flags(c, ['includeEndpointBoundTemplates', 'includePublicTemplates', 'includeRunpodTemplates']);
    return c.json([...account(c).templates.values()].map(templateView));
  });
  const template = (c: C) => {
    const found = account(c).templates.get(c.req.param('templateId')!);
    if (!found) throw notFound('template', c.req.param('templateId')!);
    return found;
  };
  app.get('/templates/:templateId', (c) => {
    flags(c, ['includeEndpointBoundTemplates', 'includePublicTemplates', 'includeRunpodTemplates']);
    return c.json(templateView(template(c)));
  });
  const updateTemplate = async (c: C) => {
    const found = template(c);
    Object.assign(found, ownRegistryAuth(c, await readBody(c, templateUpdateSchema)));
    return c.json(templateView(found));
  };
  app.patch('/templates/:templateId', updateTemplate);
  app.post('/templates/:templateId/update', updateTemplate);
  app.delete('/templates/:templateId', (c) => {
    account(c).templates.delete(template(c).id);
    return c.body(null, 204);
  });

  // ---- network volumes
  const volumeView = ({ files: _files, ...v }: { files: unknown; id: string; name: string; size: number; dataCenterId: string }) => v;
  app.post('/networkvolumes', async (c) => c.json(volumeView(platform.createNetworkVolume(account(c), await readBody(c, networkVolumeCreateSchema)))));
  app.get('/networkvolumes', (c) => c.json([...account(c).networkVolumes.values()].map(volumeView)));
  app.get('/networkvolumes/:networkVolumeId', (c) => {
    const volume = account(c).networkVolumes.get(c.req.param('networkVolumeId'));
    if (!volume) throw notFound('network volume', c.req.param('networkVolumeId'));
    return c.json(volumeView(volume));
  });
  const updateVolume = async (c: C) => c.json(volumeView(platform.updateNetworkVolume(account(c), c.req.param('networkVolumeId')!, await readBody(c, networkVolumeUpdateSchema))));
  app.patch('/networkvolumes/:networkVolumeId', updateVolume);
  app.post('/networkvolumes/:networkVolumeId/update', updateVolume);
  app.delete('/networkvolumes/:networkVolumeId', (c) => {
    platform.deleteNetworkVolume(account(c), c.req.param('networkVolumeId'));
    return c.body(null, 204);
  });

  // ---- endpoints
  const endpointView = (e: EmulatedEndpoint) => {
    const { handler: _handler, ...view } = e;
    return { ...view, createdAt: new Date(e.createdAt).toISOString(), userId: 'emulator' };
  };
  app.post('/endpoints', async (c) => {
    const body = await readBody(c, endpointCreateSchema);
    const tpl = account(c).templates.get(body.templateId);
    if (!tpl) throw badRequest(`template ${body.templateId} not found`);
    const name = body.name ?? tpl.name;
    const endpoint: EmulatedEndpoint = {
      ...ENDPOINT_DEFAULTS,
      gpuTypeIds: [...ENDPOINT_DEFAULTS.gpuTypeIds],
      ...body,
      id: newId(14),
      name,
      createdAt: platform.clock.now(),
      handler: handlerFor(name, tpl, handlerNames()),
    };
    account(c).endpoints.set(endpoint.id, endpoint);
    return c.json(endpointView(endpoint));
  });
  app.get('/endpoints', (c) => {
    flags(c, ['includeTemplate', 'includeWorkers']);
    return c.json([...account(c).endpoints.values()].map(endpointView));
  });
  const endpoint = (c: C) => {
    const found = account(c).endpoints.get(c.req.param('endpointId')!);
    if (!found) throw notFound('endpoint', c.req.param('endpointId')!);
    return found;
  };
  app.get('/endpoints/:endpointId', (c) => {
    flags(c, ['includeTemplate', 'includeWorkers']);
    return c.json(endpointView(endpoint(c)));
  });
  const updateEndpoint = async (c: C) => {
    const found = endpoint(c);
    Object.assign(found, await readBody(c, endpointUpdateSchema));
    return c.json(endpointView(found));
  };
  app.patch('/endpoints/:endpointId', updateEndpoint);
  app.post('/endpoints/:endpointId/update', updateEndpoint);
  app.delete('/endpoints/:endpointId', (c) => {
    account(c).endpoints.delete(endpoint(c).id);
    return c.body(null, 204);
  });

  // ---- container registry auth (the password is never returned)
  app.post('/containerregistryauth', async (c) => {
    const body = await readBody(c, registryAuthCreateSchema);
    const auth = { id: newId(10), ...body };
    account(c).registryAuths.set(auth.id, auth);
    return c.json({ id: auth.id, name: auth.name });
  });
  app.get('/containerregistryauth', (c) => c.json([...account(c).registryAuths.values()].map(({ id, name }) => ({ id, name }))));
  app.get('/containerregistryauth/:containerRegistryAuthId', (c) => {
    const auth = account(c).registryAuths.get(c.req.param('containerRegistryAuthId'));
    if (!auth) throw notFound('container registry auth', c.req.param('containerRegistryAuthId'));
    return c.json({ id: auth.id, name: auth.name });
  });
  app.delete('/containerregistryauth/:containerRegistryAuthId', (c) => {
    if (!account(c).registryAuths.delete(c.req.param('containerRegistryAuthId'))) throw notFound('container registry auth', c.req.param('containerRegistryAuthId'));
    return c.body(null, 204);
  });

  // ---- billing
  app.get('/billing/pods', (c) => c.json(podBilling(account(c), billingQuery(c, ['podId', 'gpuTypeId']), platform.clock.now())));
  app.get('/billing/endpoints', (c) => c.json(endpointBilling(account(c), billingQuery(c, ['endpointId', 'podId', 'gpuTypeId']), platform.clock.now())));
  app.get('/billing/networkvolumes', (c) => c.json(networkVolumeBilling(account(c), billingQuery(c, []), platform.clock.now())));

  return app;
}
