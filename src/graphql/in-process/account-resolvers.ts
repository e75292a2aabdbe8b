// The resolvers of the account's resources over REST v2: `myself` and its lists, templates,
// endpoints, network volumes, registry auths and the user's settings, queries and mutations. One
// module per resource (resolvers/*.ts), merged here type by type.
import { accountResolversOwn } from './resolvers/account.js';
import { clusterResolvers } from './resolvers/clusters.js';
import { endpointResolvers } from './resolvers/endpoints.js';
import { networkVolumeResolvers } from './resolvers/network-volumes.js';
import { registryAuthResolvers } from './resolvers/registry-auths.js';
import { templateResolvers } from './resolvers/templates.js';
import type { Resolver, ResolverTable } from './resolver-types.js';

function mergeTables(...tables: ResolverTable[]): ResolverTable {
  const merged: Record<string, Record<string, Resolver>> = {};
  for (const table of tables) for (const [type, fields] of Object.entries(table)) Object.assign((merged[type] ??= {}), fields);
  return merged;
}

export const accountResolvers: ResolverTable = mergeTables(accountResolversOwn, templateResolvers, endpointResolvers, networkVolumeResolvers, registryAuthResolvers, clusterResolvers);
