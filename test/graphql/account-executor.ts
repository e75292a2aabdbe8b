// A stand-in for the generic resolver (src/graphql/in-process/executor.ts), for the account's types
// only: it follows the field map (path, derived, call, none) over the account resolvers, so their
// answers are checked through the map end to end before the generic resolver lands. Pod fields the
// pod map does not list yet are read by name.
import { execute, parse, type ExecutionResult, type GraphQLFieldResolver } from 'graphql';
import { TransportUnsupportedError } from '../../src/errors.js';
import { accountDerivations } from '../../src/field-map/account.js';
import { fieldEntry, readPath } from '../../src/field-map/index.js';
import { buildExecutableSchema } from '../../src/graphql/executable-schema.js';
import { accountResolvers } from '../../src/graphql/in-process/account-resolvers.js';
import type { ResolverContext } from '../../src/graphql/in-process/resolver-types.js';
import type { RunpodClient } from '../../src/index.js';

const schema = buildExecutableSchema();

const fieldResolver: GraphQLFieldResolver<unknown, ResolverContext> = (source, args, ctx, info) => {
  const type = info.parentType.name;
  const own = accountResolvers[type]?.[info.fieldName];
  if (own) return own(args, ctx, info, source);
  const entry = fieldEntry(type, info.fieldName);
  if (!entry) return (source as Record<string, unknown> | null)?.[info.fieldName] ?? null;
  const from = entry.source;
  switch (from.kind) {
    case 'path':
      return readPath(source, from.path) ?? null;
    case 'derived':
      return accountDerivations[from.derive]!(source);
    case 'call':
      throw new Error(`${type}.${info.fieldName} is a call with no resolver`);
    case 'none':
      throw new TransportUnsupportedError([`${type}.${info.fieldName}`], `${type}.${info.fieldName}: ${from.why}`);
  }
};

/** Runs `query` over `rp.rest` with the account map and resolvers; `reads` counts each `once` read. */
export async function runAccountDocument(rp: RunpodClient, query: string, variables?: Record<string, unknown>): Promise<ExecutionResult & { reads: string[] }> {
  const reads: string[] = [];
  const memo = new Map<string, Promise<unknown>>();
  const ctx: ResolverContext = {
    options: {},
    rest: rp.rest,
    pods: rp.pods,
    once<T>(key: string, read: () => Promise<T>): Promise<T> {
      let hit = memo.get(key) as Promise<T> | undefined;
      if (!hit) {
        reads.push(key);
        hit = read();
        memo.set(key, hit);
      }
      return hit;
    },
  };
  const result = await execute({ schema, document: parse(query), rootValue: {}, contextValue: ctx, variableValues: variables, fieldResolver });
  return { ...result, reads };
}
