// Issue 43, cause 4: scopes deny by default. A type or field the field map does not list needs
// `write`; every field whose name (or description) says it holds a key, a token, a password, a
// secret or env values is `write`, checked over the whole schema; introspection is a `catalog` read.
import { getOperationAST, isObjectType, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { FIELD_MAP, fieldEntry, fieldScope, SECRET_BEARING_NAME } from '../../src/field-map/index.js';
import { fieldsBeyondScope, SECRET_BEARING_DESCRIPTION } from '../../src/gateway/field-scopes.js';
import { buildExecutableSchema } from '../../src/graphql/executable-schema.js';
import { createGateway } from '../../src/gateway/index.js';

const schema = buildExecutableSchema();
const beyond = (query: string, scope: 'catalog' | 'read' | 'write') => {
  const document = parse(query);
  return fieldsBeyondScope(schema, document, getOperationAST(document)!, scope);
};

describe('scopes deny by default', () => {
  it('walks the schema: every secret-bearing field, by name or description, needs write', () => {
    const secretBearing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        if (!SECRET_BEARING_NAME.test(field.name) && !SECRET_BEARING_DESCRIPTION.test(field.description ?? '')) continue;
        secretBearing.push(`${type.name}.${field.name}`);
        // By name in the map's one rule; by description in the gateway's walk.
        if (SECRET_BEARING_NAME.test(field.name)) expect(fieldScope(type.name, field.name), `${type.name}.${field.name}`).toBe('write');
      }
    }
    // The two that a read token could read over --upstream graphql, and the obvious ones.
    for (const name of ['Endpoint.aiKey', 'Machine.defaultEnv', 'Pod.env']) expect(secretBearing).toContain(name);
    expect(secretBearing.length).toBeGreaterThan(10);
  });

  it('a type or field absent from the map needs write; listed ones keep their scope', () => {
    expect(FIELD_MAP.Machine).toBeUndefined();
    expect(fieldScope('Machine', 'podHostId')).toBe('write');
    expect(fieldScope('Endpoint', 'aiKey')).toBe('write');
    expect(fieldEntry('Pod', 'name')).toBeDefined();
    expect(fieldScope('Pod', 'name')).toBe('read');
    expect(beyond('{ myself { machines { id defaultEnv } } }', 'read')).toContain('Machine.defaultEnv');
    expect(beyond('{ myself { endpoints { id aiKey } } }', 'read')).toEqual(['Endpoint.aiKey']);
  });

  it('a catalog token may introspect', async () => {
    const token = 'gw-catalog-introspect-0123456789ab';
    const gateway = createGateway({ tokens: `catalog:${token}`, client: { apiKey: 'rpa_scopes_upstream_KEY_0123456789', restUrl: 'http://127.0.0.1:9/v2', fetch: async () => new Response('{}') } });
    const answer = await gateway.fetch(
      new Request('http://127.0.0.1/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: '{ __schema { queryType { name } types { name fields { name } } } __type(name: "Pod") { name } }' }),
      }),
    );
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { data: { __schema: { queryType: { name: string } }; __type: { name: string } } };
    expect(body.data.__schema.queryType.name).toBe('Query');
    expect(body.data.__type.name).toBe('Pod');
  });
});

