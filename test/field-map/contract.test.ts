// The field map against both contracts: every `Type.field` it lists exists in schema.graphql, every
// field of a mapped type is listed, every REST path it reads exists in the REST v2 contract copy
// under the named component schema ($ref, allOf and anyOf followed), every object-valued field
// names the type it holds, every derivation and call it names exists.
import { readFileSync } from 'node:fs';
import { buildSchema, getNamedType, isObjectType, type GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DERIVATIONS, FIELD_MAP } from '../../src/field-map/index.js';
import { FIELD_REASONS } from '../../src/field-map/reasons.js';
import type { FieldEntry } from '../../src/field-map/types.js';

const schema = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));
const contract = JSON.parse(readFileSync(new URL('../../src/contracts/rest-v2.openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }> }>>;
  components: { schemas: Record<string, JsonSchema> };
};
interface JsonSchema {
  $ref?: string;
  allOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
}

/** The schemas `schema` stands for: itself, and what its $ref, allOf, anyOf and oneOf lead to. */
function expand(schema: JsonSchema, seen = new Set<JsonSchema>()): JsonSchema[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  if (schema.$ref) return expand(contract.components.schemas[schema.$ref.replace('#/components/schemas/', '')]!, seen);
  return [schema, ...[...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap((s) => expand(s, seen))];
}

/** Whether the dotted `path` exists under the component schema `component` (list items are stepped into). */
function exists(component: string, path: string): boolean {
  let at: JsonSchema[] = expand(contract.components.schemas[component]!);
  for (const step of path.split('.')) {
    const next = at.flatMap((s) => [s, ...(s.items ? expand(s.items) : [])]).flatMap((s) => (s.properties?.[step] ? [s.properties[step]] : []));
    if (next.length === 0) return false;
    at = next.flatMap((s) => expand(s));
  }
  return true;
}

const entries = Object.entries(FIELD_MAP).flatMap(([type, map]) => Object.entries(map.fields).map(([field, entry]) => ({ type, field, entry, rest: map.rest })));
/** The types the pod and catalog modules own (src/field-map/pod.ts, catalog.ts). */
const OWNED = ['Pod', 'PodMachineInfo', 'PodRuntime', 'PodRuntimeContainer', 'PodRuntimeGpus', 'PodRuntimePorts', 'GpuType', 'LowestPrice', 'CpuType', 'DataCenter'];

function readsOf(entry: FieldEntry): readonly string[] {
  if (entry.source.kind === 'path') return [entry.source.path];
  if (entry.source.kind === 'derived') return entry.source.reads;
  return [];
}

describe('the field map', () => {
  it('lists only fields of schema.graphql, and every field of each mapped type but Query and Mutation', () => {
    for (const { type, field } of entries) {
      const t = schema.getType(type) as GraphQLObjectType | undefined;
      expect(t && isObjectType(t), `${type} is an object type of schema.graphql`).toBe(true);
      expect(Object.hasOwn(t!.getFields(), field), `${type}.${field} exists in schema.graphql`).toBe(true);
    }
    for (const [type, map] of Object.entries(FIELD_MAP)) {
      if (type === 'Query' || type === 'Mutation') continue;
      const missing = Object.keys((schema.getType(type) as GraphQLObjectType).getFields()).filter((f) => !Object.hasOwn(map.fields, f));
      expect(missing, `fields of ${type} the map does not list`).toEqual([]);
    }
  });

  it('maps every type a pod or the catalog answer holds', () => {
    for (const type of OWNED) expect(FIELD_MAP[type], type).toBeDefined();
  });

  it('the path check follows $ref, allOf and anyOf, and refuses what is not there', () => {
    expect(exists('Pod', 'ssh.proxy.username')).toBe(true);
    expect(exists('Pod', 'gpu.vcpuCount')).toBe(true);
    expect(exists('Pod', 'mounts.network.volumeId')).toBe(true);
    expect(exists('Pod', 'gpu.displayName')).toBe(false);
    expect(exists('Pod', 'machineId')).toBe(false);
  });

  it('reads only REST paths that exist in the REST v2 contract under the named schema', () => {
    for (const { type, field, entry, rest } of entries) {
      if (!rest) continue;
      expect(contract.components.schemas[rest], `${type}: component ${rest}`).toBeDefined();
      for (const path of readsOf(entry)) expect(exists(rest, path), `${type}.${field} reads ${rest}.${path}`).toBe(true);
    }
  });

  it('names the GraphQL type of every object-valued field it can reach, and a derivation that exists for every derived field', () => {
    for (const { type, field, entry } of entries) {
      const named = getNamedType((schema.getType(type) as GraphQLObjectType).getFields()[field]!.type);
      if (entry.source.kind === 'derived') expect(DERIVATIONS[entry.source.derive], `${type}.${field}: derivation ${entry.source.derive}`).toBeTypeOf('function');
      if (entry.source.kind !== 'none' && isObjectType(named)) expect(entry.type, `${type}.${field} holds ${named.name}`).toBe(named.name);
      if (entry.type) expect(entry.type, `${type}.${field}`).toBe(named.name);
    }
  });

  it('a read names a parameterless GET of the contract, and a path its 200 answer has', () => {
    const readable = (route: string, dotted: string): boolean => {
      const [method, p] = route.split(' ');
      const answer = contract.paths[p!]?.[method!.toLowerCase()]?.responses?.['200']?.content?.['application/json']?.schema;
      if (method !== 'GET' || !answer || p!.includes('{')) return false;
      let at: JsonSchema[] = expand(answer);
      for (const step of dotted.split('.')) {
        at = at.flatMap((s) => (s.properties?.[step] ? expand(s.properties[step]) : []));
        if (at.length === 0) return false;
      }
      return true;
    };
    // The check itself: a route the contract has, and one RunPod has not published.
    expect(readable('GET /v2/account/ssh-keys', 'keys')).toBe(true);
    expect(readable('GET /v2/account', 'id')).toBe(false);
    for (const { type, field, entry } of entries) {
      if (entry.source.kind === 'read') expect(readable(entry.source.route, entry.source.path), `${type}.${field} reads ${entry.source.path} of ${entry.source.route}`).toBe(true);
    }
  });

  it('gives a reason for every field with no source and every derivation: informational ones in the row (their warning prints it), the others in reasons.ts, which names no other field', () => {
    const reasoned = new Set<string>();
    for (const { type, field, entry } of entries) {
      const { source } = entry;
      if (source.kind === 'none' && source.effect === 'informational') {
        expect(source.why.length, `${type}.${field}`).toBeGreaterThan(10);
        expect(FIELD_REASONS, `${type}.${field}: its reason is its row's`).not.toHaveProperty([`${type}.${field}`]);
      } else if (source.kind === 'none' || source.kind === 'derived') {
        expect(FIELD_REASONS[`${type}.${field}`]?.length, `${type}.${field}`).toBeGreaterThan(10);
        reasoned.add(`${type}.${field}`);
      }
    }
    expect(reasoned.size).toBeGreaterThan(200);
    expect(Object.keys(FIELD_REASONS).filter((c) => !reasoned.has(c))).toEqual([]);
  });

  it('scopes: the catalog is `catalog`, Pod.env and anything that can hold a secret is `write`', () => {
    for (const type of ['GpuType', 'LowestPrice', 'CpuType', 'DataCenter']) expect(FIELD_MAP[type]!.scope).toBe('catalog');
    for (const field of ['gpuTypes', 'cpuTypes', 'dataCenters']) expect(FIELD_MAP.Query!.fields[field]!.scope).toBe('catalog');
    for (const field of ['env', 'apiKey', 'registry', 'volumeKey']) expect(FIELD_MAP.Pod!.fields[field]!.scope, `Pod.${field}`).toBe('write');
    expect(FIELD_MAP.Pod!.scope).toBe('read');
  });
});
