// The executors' schema ships as a compact form (src/codegen/graphql-schema.ts, `encodeSchema`)
// that src/graphql/executable-schema.ts builds with graphql-js's constructors, not as SDL text. It
// must be the same schema buildSchema makes of the SDL: the same types in the same order, the
// same fields, arguments, wrappers and enum values, and the same answers to introspection.
import { readFileSync } from 'node:fs';
import { buildSchema, findBreakingChanges, findDangerousChanges, getIntrospectionQuery, graphqlSync, printSchema, type GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { encodeSchema, runtimeSchemaSdl } from '../../src/codegen/graphql-schema.js';
import { schemaCompact } from '../../src/graphql/__generated__/schema-compact.js';
import { buildExecutableSchema, decodeSchema } from '../../src/graphql/executable-schema.js';

const schemaFile = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
const runtimeSdl = runtimeSchemaSdl(schemaFile);

/** Every coordinate with its type, in order: types, fields, arguments, input fields, enum values. */
function coordinates(schema: GraphQLSchema): string[] {
  const out: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    out.push(`${type.name} ${type.constructor.name}`);
    if ('getFields' in type) {
      for (const field of Object.values(type.getFields())) {
        out.push(`${type.name}.${field.name}: ${String(field.type)}`);
        for (const arg of 'args' in field ? field.args : []) out.push(`${type.name}.${field.name}(${arg.name}:): ${String(arg.type)}`);
      }
    }
    if ('getValues' in type) for (const value of type.getValues()) out.push(`${type.name}.${value.name} = ${JSON.stringify(value.value)}`);
  }
  return out;
}

describe('the executors\' schema in its compact form', () => {
  const fromSdl = buildSchema(runtimeSdl);
  const built = buildExecutableSchema();

  it('the generated module is the encoding of schema.graphql\'s reachable part (npm run codegen)', () => {
    expect(schemaCompact).toBe(encodeSchema(runtimeSdl));
  });

  it('builds the same schema as buildSchema of the SDL: printed, coordinate by coordinate, and with no breaking or dangerous change either way', () => {
    expect(printSchema(built)).toBe(printSchema(fromSdl));
    expect(coordinates(built)).toEqual(coordinates(fromSdl));
    expect(coordinates(built).length).toBeGreaterThan(1500);
    for (const [a, b] of [[fromSdl, built], [built, fromSdl]] as const) {
      expect(findBreakingChanges(a, b)).toEqual([]);
      expect(findDangerousChanges(a, b)).toEqual([]);
    }
    expect(built.getQueryType()?.name).toBe('Query');
    expect(built.getMutationType()?.name).toBe('Mutation');
    expect(built.getSubscriptionType()).toBeUndefined();
    expect(built.getDirectives().map((d) => d.name)).toEqual(fromSdl.getDirectives().map((d) => d.name));
  });

  it('answers introspection as the SDL\'s schema does', () => {
    const query = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true });
    expect(graphqlSync({ schema: built, source: query })).toEqual(graphqlSync({ schema: fromSdl, source: query }));
  });

  it('the whole schema.graphql round-trips too, and the encoder refuses what the form cannot hold', () => {
    expect(printSchema(decodeSchema(encodeSchema(printSchema(buildSchema(schemaFile)))))).toBe(printSchema(buildSchema(schemaFile)));
    expect(() => encodeSchema('type Query { a(x: Int = 1): Int }')).toThrow(/default/);
    expect(() => encodeSchema('"""about"""\ntype Query { a: Int }')).toThrow(/description/);
    expect(() => encodeSchema('type Query { a: Int @deprecated(reason: "old") }')).toThrow(/deprecation/);
    expect(() => encodeSchema('interface Node { id: ID }\ntype Query implements Node { id: ID }')).toThrow(/interface/);
    expect(() => encodeSchema('union U = Query\ntype Query { a: Int }')).toThrow(/union/);
  });

  it('is smaller than the SDL text it replaces', () => {
    expect(schemaCompact.length).toBeLessThan(runtimeSdl.replace(/\s+/g, ' ').length * 0.75);
  });
});
