import { Hono } from 'hono';
import { notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { EmulatorEnv } from './context.js';
import { readContractBody } from './contract.js';
import { accountOf, idParam, iso, stateOf, type Delegation, type RestV2Deps } from './context.js';
import { problem } from './problem.js';

// `123456789012.dkr.ecr.us-east-1.amazonaws.com/repo[:tag]` or `arn:aws:ecr:us-east-1:123456789012:repository/repo`
const ECR_URI = /^(\d{12})\.dkr\.ecr\.([a-z0-9-]+)\.amazonaws\.com\/([^:\s]+)(?::(\S+))?$/;
const ECR_ARN = /^arn:aws:ecr:([a-z0-9-]+):(\d{12}):repository\/([^:\s]+)(?::(\S+))?$/;

function parseResource(resource: string): { account: string; region: string; repository: string; tag: string } {
  const uri = ECR_URI.exec(resource);
  if (uri) return { account: uri[1]!, region: uri[2]!, repository: uri[3]!, tag: uri[4] ?? '*' };
  const arn = ECR_ARN.exec(resource);
  if (arn) return { account: arn[2]!, region: arn[1]!, repository: arn[3]!, tag: arn[4] ?? '*' };
  throw problem(400, 'resource must be an ECR repository URI or ARN.');
}

function delegationView(d: Delegation, userId: string): Record<string, unknown> {
  const r = parseResource(d.resource);
  return {
    id: d.id,
    name: d.name,
    delegatorUserId: userId,
    awsUser: `arn:aws:iam::${r.account}:user/runpod-ecr-${d.id}`,
    repository: r.repository,
    tag: r.tag,
    awsRegion: r.region,
    dockerRegistryUri: `${r.account}.dkr.ecr.${r.region}.amazonaws.com`,
    createdAt: iso(d.createdAt),
  };
}

export function registryRoutes(deps: RestV2Deps): Hono<EmulatorEnv> {
  const app = new Hono<EmulatorEnv>();

  // Before `/registries/:id`, which would take `delegations` for an id.
  app.get('/registries/delegations', (c) => {
    const account = accountOf(c);
    return c.json({ delegations: [...stateOf(account).delegations.values()].map((d) => delegationView(d, account.id)) });
  });
  app.post('/registries/delegations', async (c) => {
    const body = await readContractBody<{ resource: string; name?: string | null }>(c.req, 'CreateDelegationRequest');
    parseResource(body.resource);
    const delegation: Delegation = { id: newId(10), name: body.name ?? null, resource: body.resource, createdAt: deps.platform.clock.now() };
    stateOf(accountOf(c)).delegations.set(delegation.id, delegation);
    return c.json(delegationView(delegation, accountOf(c).id), 201);
  });
  app.delete('/registries/delegations/:id', (c) => {
    if (!stateOf(accountOf(c)).delegations.delete(idParam(c))) throw notFound('delegation', idParam(c));
    return c.body(null, 204);
  });

  app.get('/registries', (c) => c.json({ registries: [...accountOf(c).registryAuths.values()].map(({ id, name }) => ({ id, name })) }));
  app.post('/registries', async (c) => {
    const body = await readContractBody<{ name: string; username: string; password: string }>(c.req, 'CreateRegistryRequest');
    const auths = accountOf(c).registryAuths;
    if ([...auths.values()].some((a) => a.name === body.name)) throw problem(400, `A registry named '${body.name}' already exists.`);
    const auth = { id: newId(10), ...body };
    auths.set(auth.id, auth);
    // The password is never sent back.
    return c.json({ id: auth.id, name: auth.name }, 201);
  });
  app.get('/registries/:id', (c) => {
    const auth = accountOf(c).registryAuths.get(idParam(c));
    if (!auth) throw notFound('registry', idParam(c));
    return c.json({ id: auth.id, name: auth.name });
  });
  app.delete('/registries/:id', (c) => {
    const account = accountOf(c);
    const id = idParam(c);
    if (!account.registryAuths.has(id)) throw notFound('registry', id);
    const template = [...account.templates.values()].find((t) => t.containerRegistryAuthId === id);
    if (template) throw problem(400, `Registry ${id} is used by template ${template.id}.`);
    account.registryAuths.delete(id);
    return c.body(null, 204);
  });
  return app;
}
