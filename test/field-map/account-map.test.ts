// The account's part of the field map against both contracts: every field of each mapped GraphQL
// type is listed and exists in schema.graphql; every path and every REST path a derivation reads
// exists in the REST v2 contract under the type's component schema; every call names contract
// routes and has a resolver, and every resolver a call entry; every derivation named exists.
import { readFileSync } from 'node:fs';
import { buildSchema, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { accountMutationFields, accountQueryFields, accountTypes } from '../../src/field-map/account.js';
import { clusterTypes } from '../../src/field-map/clusters.js';
import { endpointMutationFields, endpointTypes } from '../../src/field-map/endpoints.js';
import { DERIVATIONS, FIELD_MAP, fieldScope } from '../../src/field-map/index.js';
import { networkVolumeMutationFields, networkVolumeTypes } from '../../src/field-map/network-volumes.js';
import { registryAuthMutationFields, registryAuthTypes } from '../../src/field-map/registry-auths.js';
import { templateMutationFields, templateQueryFields, templateTypes } from '../../src/field-map/templates.js';
import { FIELD_REASONS } from '../../src/field-map/reasons.js';
import type { FieldEntry } from '../../src/field-map/types.js';
import { accountResolvers } from '../../src/graphql/in-process/account-resolvers.js';

const root = new URL('../../', import.meta.url);
const schema = buildSchema(readFileSync(new URL('schema.graphql', root), 'utf8'));
type Json = Record<string, unknown>;
const contract = JSON.parse(readFileSync(new URL('src/contracts/rest-v2.openapi.json', root), 'utf8')) as { paths: Record<string, Json>; components: { schemas: Record<string, Json> } };

const types = { ...accountTypes, ...templateTypes, ...endpointTypes, ...networkVolumeTypes, ...registryAuthTypes, ...clusterTypes };
const roots: Record<'Query' | 'Mutation', Record<string, FieldEntry>> = {
  Query: { ...accountQueryFields, ...templateQueryFields },
  Mutation: { ...accountMutationFields, ...templateMutationFields, ...endpointMutationFields, ...networkVolumeMutationFields, ...registryAuthMutationFields },
};

/** The sub-schemas a value of `node` can be (following $ref, allOf, anyOf and oneOf). */
function variants(node: Json | undefined): Json[] {
  if (!node) return [];
  if (typeof node.$ref === 'string') return variants(contract.components.schemas[node.$ref.replace('#/components/schemas/', '')]);
  const nested = ['allOf', 'anyOf', 'oneOf'].flatMap((k) => ((node[k] as Json[] | undefined) ?? []).flatMap(variants));
  return [node, ...nested];
}

/** Whether the dotted path exists under the component schema `name`. */
function hasPath(name: string, dotted: string): boolean {
  let at: Json[] = variants({ $ref: `#/components/schemas/${name}` });
  for (const step of dotted.split('.')) {
    at = at.flatMap((v) => variants((v.properties as Record<string, Json> | undefined)?.[step]));
    if (!at.length) return false;
  }
  return true;
}

const routeExists = (route: string): boolean => {
  const [method, path] = route.split(' ');
  return Boolean(contract.paths[path!]?.[method!.toLowerCase()]);
};

describe("the account's field map", () => {
  it.each(Object.entries(types))('%s lists every field of the GraphQL type, and only those', (name, map) => {
    const type = schema.getType(name);
    expect(isObjectType(type)).toBe(true);
    expect(Object.keys(map.fields).sort()).toEqual(Object.keys((type as { getFields(): object }).getFields()).sort());
  });

  it.each(Object.entries(types).filter(([, m]) => m.rest))('%s: every path and every read of a derivation is in the REST v2 contract', (_name, map) => {
    for (const [field, entry] of Object.entries(map.fields)) {
      const source = entry.source;
      const paths = source.kind === 'path' ? [source.path] : source.kind === 'derived' ? source.reads : [];
      for (const p of paths) expect({ field, path: p, exists: hasPath(map.rest!, p) }).toEqual({ field, path: p, exists: true });
      if (source.kind === 'derived') expect(typeof DERIVATIONS[source.derive], source.derive).toBe('function');
    }
  });

  it('the root fields exist in schema.graphql and are in the assembled map', () => {
    for (const [rootName, fields] of Object.entries(roots)) {
      const type = schema.getType(rootName) as { getFields(): Record<string, unknown> };
      for (const [field, entry] of Object.entries(fields)) {
        expect(type.getFields()[field], `${rootName}.${field}`).toBeDefined();
        expect(FIELD_MAP[rootName]!.fields[field]).toBe(entry);
      }
    }
  });

  it('every call names routes of the contract and has a resolver; every resolver is a call in the map', () => {
    const calls: string[] = [];
    for (const [typeName, fields] of [...Object.entries(types).map(([n, m]) => [n, m.fields] as const), ...Object.entries(roots)]) {
      for (const [field, entry] of Object.entries(fields)) {
        if (entry.source.kind !== 'call') continue;
        calls.push(`${typeName}.${field}`);
        for (const route of entry.source.routes) expect({ route, exists: routeExists(route) }).toEqual({ route, exists: true });
      }
    }
    const resolved = Object.entries(accountResolvers).flatMap(([t, fields]) => Object.keys(fields).map((f) => `${t}.${f}`));
    expect(resolved.sort()).toEqual(calls.sort());
  });

  it('a field that can hold a secret value is write: template and endpoint env, registry credentials', () => {
    expect(fieldScope('PodTemplate', 'env')).toBe('write');
    expect(fieldScope('Endpoint', 'env')).toBe('write');
    expect(fieldScope('ContainerRegistryAuth', 'registryAuth')).toBe('write');
    expect(fieldScope('PodTemplate', 'name')).toBe('read');
    for (const field of Object.keys(roots.Mutation)) expect(fieldScope('Mutation', field)).toBe('write');
  });

  it('the account reads documented without a path stay without a source, saying so', () => {
    for (const field of ['id', 'email', 'clientBalance', 'spendLimit', 'currentSpendPerHr']) {
      const entry = accountTypes.User!.fields[field]!;
      expect(entry.source.kind).toBe('none');
    }
    expect(FIELD_REASONS['User.clientBalance']).toMatch(/without a path/);
  });
});
