// NetworkVolume over REST v2: `myself { networkVolumes }`, create, update, delete, and a volume's
// data centre. Answers are REST v2 `NetworkVolume` objects, mapped by the generic resolver.
import { ValidationError } from '../../../errors.js';
import type { NetworkVolume, UpdateNetworkVolumeInput } from '../../../rest/types.js';
import type { ResolverContext, ResolverTable } from '../resolver-types.js';
import { inputOf, isSet, orNull, refuseSet, required } from './inputs.js';

export const listNetworkVolumes = (ctx: ResolverContext): Promise<NetworkVolume[]> => ctx.once('GET /v2/network-volumes', () => ctx.rest.networkVolumes.list(ctx.options));

export const networkVolumeResolvers: ResolverTable = {
  User: {
    networkVolumes: (_args, ctx) => listNetworkVolumes(ctx),
  },
  NetworkVolume: {
    dataCenter: (_args, ctx, _info, source) => {
      const id = (source as { dataCenter?: unknown } | null)?.dataCenter;
      if (typeof id !== 'string') return null;
      // The volumes of one list name a few data centres: more than one is the catalog's one list.
      return ctx.byId(
        'GET /v2/catalog/datacenters',
        id,
        (one) => orNull(() => ctx.rest.catalog.dataCenter(one, undefined, ctx.options)),
        () => ctx.rest.catalog.dataCenters(undefined, ctx.options),
      );
    },
  },
  Mutation: {
    // Sent once: a volume has no env for a marker, so an ambiguous failure is a PossiblyCreatedError.
    createNetworkVolume: ({ input }, ctx) => {
      const fields = inputOf(input);
      refuseSet('createNetworkVolume', fields, { userId: "Leave it out: the volume is made for the API key's account." });
      const why = 'REST v2 makes a volume only with a name, a size and a data centre';
      const body = {
        name: required<string>(fields, 'name', 'string', why),
        size: required<number>(fields, 'size', 'number', why),
        dataCenter: required<string>(fields, 'dataCenterId', 'string', why),
      };
      return ctx.rest.networkVolumes.create(body, ctx.options);
    },
    updateNetworkVolume: ({ input }, ctx) => {
      const { id, name, size } = inputOf(input) as { id: string; name?: string | null; size?: number | null };
      const body: UpdateNetworkVolumeInput = { ...(isSet(name) && { name: name! }), ...(typeof size === 'number' && { size }) };
      if (!Object.keys(body).length) throw new ValidationError('input', 'gives nothing to change: give name or size');
      return ctx.rest.networkVolumes.update(id, body, ctx.options);
    },
    deleteNetworkVolume: async ({ input }, ctx) => {
      await ctx.rest.networkVolumes.delete((inputOf(input) as { id: string }).id, ctx.options);
      return null;
    },
  },
};
