import { Hono } from 'hono';
import { notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { EmulatedTemplate } from '../platform.js';
import type { EmulatorEnv } from './context.js';
import { readContractBody } from './contract.js';
import { accountOf, idParam, type RestV2Deps } from './context.js';
import { commandOf, type ContainerFields } from './container.js';
import { cutPage, newestFirst } from './pages.js';
import { problem } from './problem.js';

/** Template settings only REST v2 has. */
interface TemplateExtras {
  args: string;
  startSsh: boolean;
  startJupyter: boolean;
  allowedCudaVersions: string[];
}

const templateExtras = new WeakMap<EmulatedTemplate, TemplateExtras>();
const CATEGORIES = ['CPU', 'NVIDIA', 'AMD'];

export function templateView(t: EmulatedTemplate): Record<string, unknown> {
  const extras = templateExtras.get(t);
  return {
    id: t.id,
    name: t.name,
    image: t.imageName,
    args: extras?.args ?? '',
    entrypoint: t.dockerEntrypoint,
    cmd: t.dockerStartCmd,
    disk: t.containerDiskInGb,
    mounts: t.volumeInGb > 0 ? { persistent: { size: Math.max(10, t.volumeInGb), path: t.volumeMountPath } } : {},
    ports: t.ports,
    env: t.env,
    registry: t.containerRegistryAuthId ?? null,
    serverless: t.isServerless,
    public: t.isPublic,
    category: CATEGORIES.includes(t.category) ? t.category : 'NVIDIA',
    startSsh: extras?.startSsh ?? true,
    startJupyter: extras?.startJupyter ?? true,
    allowedCudaVersions: extras?.allowedCudaVersions ?? [],
  };
}

interface TemplateBody extends ContainerFields {
  name?: string;
  allowedCudaVersions?: string[];
  category?: string;
  mounts?: { persistent?: { size: number; path: string } };
  public?: boolean;
  serverless?: boolean;
  startJupyter?: boolean;
  startSsh?: boolean;
}

export { PUBLIC_TEMPLATES } from '../public-templates.js';

function applyBody(t: EmulatedTemplate, extras: TemplateExtras, body: TemplateBody): void {
  if (body.name !== undefined) t.name = body.name;
  if (body.image !== undefined) t.imageName = body.image;
  if (body.disk !== undefined) t.containerDiskInGb = body.disk;
  if (body.env !== undefined) t.env = body.env;
  if (body.ports !== undefined) t.ports = body.ports;
  if (body.registry !== undefined) t.containerRegistryAuthId = body.registry ?? undefined;
  if (body.category !== undefined) t.category = body.category;
  if (body.mounts !== undefined) {
    t.volumeInGb = body.mounts.persistent?.size ?? 0;
    t.volumeMountPath = body.mounts.persistent?.path ?? '/workspace';
  }
  if (body.public !== undefined) t.isPublic = body.public;
  if (body.serverless !== undefined) t.isServerless = body.serverless;
  if (body.args !== undefined) extras.args = body.args;
  const { entrypoint, cmd } = commandOf(body);
  if (entrypoint !== undefined) t.dockerEntrypoint = entrypoint;
  if (cmd !== undefined) t.dockerStartCmd = cmd;
  if (body.startSsh !== undefined) extras.startSsh = body.startSsh;
  if (body.startJupyter !== undefined) extras.startJupyter = body.startJupyter;
  if (body.allowedCudaVersions !== undefined) extras.allowedCudaVersions = body.allowedCudaVersions;
}

export function templateRoutes(_deps: RestV2Deps): Hono<EmulatorEnv> {
  const app = new Hono<EmulatorEnv>();
  const find = (c: Parameters<typeof idParam>[0]) => {
    const found = accountOf(c).templates.get(idParam(c));
    if (!found) throw notFound('template', idParam(c));
    return found;
  };

  app.get('/templates', (c) => {
    const { items, pagination } = cutPage(c, newestFirst(accountOf(c).templates.values()));
    return c.json({ templates: items.map(templateView), pagination });
  });
  app.post('/templates', async (c) => {
    const body = await readContractBody<TemplateBody>(c.req, 'CreateTemplateRequest');
    if (body.registry && !accountOf(c).registryAuths.has(body.registry)) throw notFound('registry', body.registry);
    const template: EmulatedTemplate = {
      id: newId(10),
      name: body.name!,
      imageName: body.image!,
      category: 'NVIDIA',
      containerDiskInGb: 50,
      volumeInGb: 0,
      volumeMountPath: '/workspace',
      env: {},
      ports: [],
      isPublic: false,
      isServerless: false,
      readme: '',
      dockerEntrypoint: [],
      dockerStartCmd: [],
    };
    const extras: TemplateExtras = { args: '', startSsh: true, startJupyter: true, allowedCudaVersions: [] };
    applyBody(template, extras, body);
    templateExtras.set(template, extras);
    accountOf(c).templates.set(template.id, template);
    return c.json(templateView(template), 201);
  });
  app.get('/templates/:id', (c) => c.json(templateView(find(c))));
  app.patch('/templates/:id', async (c) => {
    const template = find(c);
    const body = await readContractBody<TemplateBody>(c.req, 'UpdateTemplateRequest');
    if (body.registry && !accountOf(c).registryAuths.has(body.registry)) throw notFound('registry', body.registry);
    let extras = templateExtras.get(template);
    if (!extras) templateExtras.set(template, (extras = { args: '', startSsh: true, startJupyter: true, allowedCudaVersions: [] }));
    applyBody(template, extras, body);
    return c.json(templateView(template));
  });
  app.delete('/templates/:id', (c) => {
    const template = find(c);
    const user = [...accountOf(c).endpoints.values()].find((e) => e.templateId === template.id);
    if (user) throw problem(400, `Template ${template.id} is used by endpoint ${user.id}.`);
    accountOf(c).templates.delete(template.id);
    return c.body(null, 204);
  });
  return app;
}
