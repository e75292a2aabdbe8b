// PodTemplate over REST v2: `podTemplate(id)`, `myself { podTemplates }`, saveTemplate, deleteTemplate.
// Answers are REST v2 `Template` objects; the generic resolver maps them through the field map.
import { ValidationError } from '../../../errors.js';
import type { CreateTemplateInput, Template, UpdateTemplateInput } from '../../../rest/types.js';
import type { ResolverContext, ResolverTable } from '../resolver-types.js';
import { commaList, envObject, inputOf, isSet, orNull, refuse, refuseSet, required, type Input } from './inputs.js';

/** Every template of the account, read once per document. */
export const listTemplates = (ctx: ResolverContext): Promise<Template[]> => ctx.once('GET /v2/templates', async () => ctx.rest.templates.list(ctx.options));

const UNSUPPORTED = {
  advancedStart: 'Leave it out: REST v2 templates have no advanced start.',
  readme: 'Leave it out or empty: REST v2 templates have no readme.',
  startScript: 'Leave it out, and put the command in dockerArgs: REST v2 templates have no start script.',
  portsConfig: 'Leave it out and list the ports in ports ("8888/http,22/tcp").',
  config: 'Leave it out: REST v2 templates have no free-form config.',
} as const;

/**
 * SaveTemplateInput as REST v2's template body, field by field. On an update every field GraphQL
 * requires is sent too, as GraphQL's saveTemplate replaces them; a volume of 0 removes the mount.
 */
export function templateBody(input: Input, update: boolean): CreateTemplateInput | UpdateTemplateInput {
  refuseSet('saveTemplate', input, UNSUPPORTED);
  if (input.category === 'GPU') refuse('saveTemplate', 'category', 'Give NVIDIA or AMD (or CPU): REST v2 names the GPU maker.');
  const body: Record<string, unknown> = {};
  if (typeof input.name === 'string') body.name = input.name;
  if (typeof input.imageName === 'string' && input.imageName) body.image = input.imageName;
  else if (!update) required(input, 'imageName', 'string', 'a REST v2 template needs an image');
  if (typeof input.containerDiskInGb === 'number') body.disk = input.containerDiskInGb;
  if (typeof input.dockerArgs === 'string' && (input.dockerArgs || update)) body.args = input.dockerArgs;
  const env = envObject('env', input.env);
  if (env) body.env = env;
  if (input.ports !== undefined && input.ports !== null) body.ports = commaList(input.ports);
  if (typeof input.volumeInGb === 'number' && input.volumeInGb > 0) {
    const path = required<string>(input, 'volumeMountPath', 'string', 'a template volume needs its mount path (e.g. /workspace)');
    body.mounts = { persistent: { size: input.volumeInGb, path } };
  } else if (update && input.volumeInGb === 0) {
    body.mounts = {};
  }
  const flags = { isPublic: 'public', isServerless: 'serverless', startSsh: 'startSsh', startJupyter: 'startJupyter' } as const;
  for (const [from, to] of Object.entries(flags)) if (typeof input[from] === 'boolean') body[to] = input[from];
  if (isSet(input.containerRegistryAuthId)) body.registry = input.containerRegistryAuthId;
  else if (update && input.containerRegistryAuthId === null) body.registry = null;
  if (typeof input.category === 'string') body.category = input.category;
  return body as CreateTemplateInput;
}

export const templateResolvers: ResolverTable = {
  Query: {
    // Once per id; many ids at once are the account's one list read (a public template it lacks is read by id).
    podTemplate: ({ id }, ctx) => ctx.byId('GET /v2/templates', String(id), (one) => orNull(() => ctx.rest.templates.get(one, ctx.options)), async () => ctx.rest.templates.list(ctx.options)),
  },
  User: {
    podTemplates: (_args, ctx) => listTemplates(ctx),
  },
  Mutation: {
    // A create is sent once: rp.rest's create marker finds it after an ambiguous failure.
    saveTemplate: ({ input }, ctx) => {
      const fields = inputOf(input);
      const id = fields.id;
      if (isSet(id)) return ctx.rest.templates.update(String(id), templateBody(fields, true) as UpdateTemplateInput, ctx.options);
      return ctx.rest.templates.create(templateBody(fields, false) as CreateTemplateInput, ctx.options);
    },
    deleteTemplate: async ({ templateName }, ctx) => {
      const named = (await listTemplates(ctx)).filter((t) => t.name === templateName);
      if (named.length !== 1) {
        throw new ValidationError('templateName', named.length ? `names ${named.length} templates of this account; rename all but one first` : 'names no template of this account');
      }
      await ctx.rest.templates.delete(named[0]!.id, ctx.options);
      return null;
    },
  },
};
