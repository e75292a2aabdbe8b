// The resolvers of the account's resources over REST v2: `myself` and its lists, templates,
// endpoints, network volumes, registry auths and the user's settings, queries and mutations.
import type { ResolverTable } from './resolver-types.js';

export const accountResolvers: ResolverTable = {};
