// ContainerRegistryAuth over REST v2: `myself { containerRegistryCreds }`, saveRegistryAuth and
// deleteRegistryAuth (REST v2 has no update: updateRegistryAuth has no source in the field map).
import { ValidationError } from '../../../errors.js';
import type { Registry } from '../../../rest/types.js';
import type { ResolverContext, ResolverTable } from '../resolver-types.js';
import { inputOf, required } from './inputs.js';

export const listRegistries = (ctx: ResolverContext): Promise<Registry[]> => ctx.once('GET /v2/registries', () => ctx.rest.registries.list(ctx.options));

export const registryAuthResolvers: ResolverTable = {
  User: {
    containerRegistryCreds: (_args, ctx) => listRegistries(ctx),
  },
  Mutation: {
    saveRegistryAuth: ({ input }, ctx) => {
      const fields = inputOf(input);
      const why = 'REST v2 saves registry credentials only with a name, a username and a password';
      const password = required<string>(fields, 'password', 'string', why);
      // rp.rest.registries.create registers the password as a secret before the body leaves.
      const body = { name: required<string>(fields, 'name', 'string', why), username: required<string>(fields, 'username', 'string', why), password };
      return ctx.rest.registries.create(body, ctx.options);
    },
    deleteRegistryAuth: async ({ registryAuthId }, ctx) => {
      if (typeof registryAuthId !== 'string' || !registryAuthId) throw new ValidationError('registryAuthId', 'is required: the id of the credentials to delete');
      await ctx.rest.registries.delete(registryAuthId, ctx.options);
      return null;
    },
  },
};
