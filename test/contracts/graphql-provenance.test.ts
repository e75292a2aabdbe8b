// schema.graphql is generated from evidence (DESIGN.md): the reference copy, less what production's
// refusal proves, plus what newer production-derived sources show. These tests hold the merge, the
// provenance file and the caller documents the evidence came from together.
import { readdirSync, readFileSync } from 'node:fs';
import { buildSchema, getVariableValues, Kind, parse, validate, type GraphQLEnumType, type GraphQLInputObjectType, type GraphQLObjectType, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schemaInputs, schemaModule } from '../../src/codegen/contracts.js';
import { mergeSchema, schemaDelta, type DeltaKind } from '../../src/codegen/graphql-schema.js';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

interface Source {
  readonly repository: string;
  readonly path: string;
  readonly commit: string | null;
  readonly date: string;
  readonly kind: string;
}
interface Entry {
  readonly change: DeltaKind | 'restored';
  readonly from: readonly string[];
  readonly note?: string;
}
interface Provenance {
  readonly sources: Readonly<Record<string, Source>>;
  readonly coordinates: Readonly<Record<string, Entry>>;
  readonly restored: Readonly<Record<string, Entry>>;
  readonly conflicts: ReadonlyArray<{ readonly coordinate: string; readonly sources: Readonly<Record<string, string>>; readonly chosen: string; readonly why: string }>;
}

const provenance = JSON.parse(read('src/contracts/graphql-provenance.json')) as Provenance;
const schemaText = read('schema.graphql');
const { reference, additions, corrections } = schemaInputs();

describe('schema.graphql = reference − proven removals + additions with provenance', () => {
  it('is the merge of its three inputs, the same text each time', () => {
    expect(schemaModule(reference, additions, corrections)).toBe(schemaText);
    expect(mergeSchema(reference, additions, corrections)).toBe(mergeSchema(reference, additions, corrections));
  });

  it('names the source of every coordinate it adds to or changes in the reference, and nothing else', () => {
    const delta = Object.fromEntries(schemaDelta(reference, schemaText));
    const recorded = Object.fromEntries(Object.entries(provenance.coordinates).map(([c, e]) => [c, e.change]));
    expect(recorded).toEqual(delta);
    // The count the report quotes.
    expect(Object.keys(delta).length).toBeGreaterThan(100);
  });

  it('every entry cites known sources, and every source says where, when and what kind of evidence it is', () => {
    for (const [coordinate, entry] of [...Object.entries(provenance.coordinates), ...Object.entries(provenance.restored)]) {
      expect(entry.from.length, coordinate).toBeGreaterThan(0);
      for (const id of entry.from) expect(provenance.sources, `${coordinate} cites ${id}`).toHaveProperty(id);
    }
    for (const [id, s] of Object.entries(provenance.sources)) {
      expect(s.repository, id).toMatch(/\S/);
      expect(s.path, id).toMatch(/\S/);
      expect(s.commit === null ? s.date : s.commit, id).toMatch(/\S/);
      if (s.commit !== null) expect(s.commit, id).toMatch(/^[0-9a-f]{40}$/);
      expect(s.kind, id).toMatch(/\S/);
    }
  });

  it('a field leaves only with evidence: minimumBidPrice is back, and each removal left says why production refuses it', () => {
    const schema = buildSchema(schemaText);
    expect((schema.getType('LowestPrice') as GraphQLObjectType).getFields()).toHaveProperty('minimumBidPrice');
    for (const coordinate of Object.keys(provenance.restored)) {
      const [type, field] = coordinate.split('.');
      expect((buildSchema(reference).getType(type!) as GraphQLObjectType).getFields()).toHaveProperty(field!);
      expect(corrections.remove ?? {}).not.toHaveProperty(coordinate);
    }
    for (const [coordinate, why] of Object.entries(corrections.remove ?? {})) expect(why, coordinate).toMatch(/\S{8}/);
  });

  it('writes every conflict down with what each source says, the choice and why', () => {
    expect(provenance.conflicts.length).toBeGreaterThan(0);
    for (const c of provenance.conflicts) {
      expect(Object.keys(c.sources).length, c.coordinate).toBeGreaterThan(1);
      expect(c.chosen, c.coordinate).toMatch(/\S/);
      expect(c.why, c.coordinate).toMatch(/\S{4}/);
    }
  });
});

describe('mergeSchema', () => {
  const base = 'type Query { a: Int b(x: Int): String }\ninput I { p: String! }\nenum E { X }\nscalar S\n';

  it('appends an extension’s new members and replaces one of the same name (a changed type or argument list)', () => {
    const merged = buildSchema(mergeSchema(base, 'extend type Query { b(x: Int, y: Int): String c: E }\nextend input I { p: String q: Int }\nextend enum E { Y }', {}));
    const query = merged.getQueryType()!.getFields();
    expect(Object.keys(query)).toEqual(['a', 'b', 'c']);
    expect(query.b!.args.map((a) => a.name)).toEqual(['x', 'y']);
    expect(String((merged.getType('I') as GraphQLInputObjectType).getFields().p!.type)).toBe('String');
    expect((merged.getType('E') as GraphQLEnumType).getValues().map((v) => v.name)).toEqual(['X', 'Y']);
  });

  it('a definition replaces the reference’s of that name (a scalar becomes an input) or is added', () => {
    const text = mergeSchema(base, 'input S { id: String! }\ntype T { id: String }', {});
    expect(text).toContain('input S {');
    expect(text).not.toContain('scalar S');
    expect(schemaDelta(base, text)).toEqual(new Map([['S', 'changed'], ['T', 'added']]));
  });

  it('lists a new field as one coordinate (its arguments with it), a new argument of an old field as its own, and a removal', () => {
    const text = mergeSchema(base, 'extend type Query { d(z: Int): Int b(x: Int, w: Int): String }', { remove: { 'Query.a': 'refused by production' } });
    expect(schemaDelta(base, text)).toEqual(new Map([['Query.a', 'removed'], ['Query.b(w:)', 'added'], ['Query.d', 'added']]));
  });

  it('refuses an extension of a type the reference lacks, and a removal of a field it lacks', () => {
    expect(() => mergeSchema(base, 'extend type Nope { a: Int }', {})).toThrow('extends Nope');
    expect(() => mergeSchema(base, 'extend input Query { a: Int }', {})).toThrow('extends Query');
    expect(() => mergeSchema(base, '', { remove: { 'Query.zz': 'x' } })).toThrow('Query.zz');
  });
});

/** A caller's document from the evidence, with the variables it sends (test/fixtures/graphql-evidence/). */
interface EvidenceDocument {
  readonly file: string;
  readonly source: string;
  readonly text: string;
  readonly variables: Record<string, unknown> | undefined;
}

const EVIDENCE_DIR = new URL('test/fixtures/graphql-evidence/', root);
const evidence: EvidenceDocument[] = readdirSync(EVIDENCE_DIR)
  .filter((f) => f.endsWith('.graphql'))
  .sort()
  .map((file) => {
    const text = readFileSync(new URL(file, EVIDENCE_DIR), 'utf8');
    const variables = /^# variables: (.*)$/m.exec(text)?.[1];
    return { file, source: /^# source: (\S+)$/m.exec(text)?.[1] ?? '', text, variables: variables === undefined ? undefined : (JSON.parse(variables) as Record<string, unknown>) };
  });

describe('the documents the evidence came from', () => {
  const schema = buildSchema(schemaText);

  it('come from the sources the provenance names', () => {
    expect(evidence.length).toBeGreaterThan(150);
    for (const d of evidence) expect(provenance.sources, d.file).toHaveProperty(d.source);
  });

  it.each(evidence.map((d) => [d.file, d] as const))('%s validates, and its variables coerce, against schema.graphql', (_file, d) => {
    const document = parse(d.text);
    expect(validate(schema, document).map((e) => e.message)).toEqual([]);
    if (d.variables === undefined) return;
    // Variables are checked at execution, not by validate: the platform answers HTTP 400 to an input field it does not know.
    const operation = document.definitions.find((x): x is OperationDefinitionNode => x.kind === Kind.OPERATION_DEFINITION)!;
    const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], d.variables);
    expect(coerced.errors?.map((e) => e.message) ?? []).toEqual([]);
  });
});
