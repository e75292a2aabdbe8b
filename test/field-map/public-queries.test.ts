// Issue 42 item 4: the README's table of what RunPod answers without a key and the field map's
// `catalog` scope are one mapping. Each root query in schema.graphql is in the table, answered
// without a key exactly when the map gives it the `catalog` scope, and the emulator and the
// gateway follow the same scope.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { FIELD_MAP, fieldScope } from '../../src/field-map/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(`${root}src/graphql/README.md`, 'utf8');
const schema = buildSchema(readFileSync(`${root}schema.graphql`, 'utf8'));

/** The table's rows: each root field a row names, and whether the row says it is answered. */
function tableRows(): Map<string, { answered: boolean; inSchema: boolean }> {
  const start = readme.indexOf('<!-- public-queries:start -->');
  const end = readme.indexOf('<!-- public-queries:end -->');
  expect(start).toBeGreaterThan(0);
  const rows = new Map<string, { answered: boolean; inSchema: boolean }>();
  for (const line of readme.slice(start, end).split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4 || cells[1] === 'query' || cells[1]!.startsWith('---')) continue;
    const names = [...cells[1]!.matchAll(/`(\w+)(?:\(input:\))?`/g)].map((m) => m[1]!);
    const answered = cells[2]!.startsWith('answered');
    const inSchema = !cells[2]!.includes('not mapped here');
    // Only the row's leading names are root fields ("`pod`, `podTemplate`"); a parenthesis holds sub-fields.
    const lead = cells[1]!.split('(')[0]!;
    for (const name of names) if (lead.includes(`\`${name}\``)) rows.set(name, { answered, inSchema });
    if (cells[1] === 'every mutation') rows.set('Mutation', { answered, inSchema: true });
  }
  return rows;
}

describe('public queries: the README and the field map say the same', () => {
  it('every mapped root query of schema.graphql has a row, answered without a key exactly when its scope is catalog', () => {
    const rows = tableRows();
    const queries = Object.keys(schema.getQueryType()!.getFields()).filter((name) => Object.hasOwn(FIELD_MAP.Query!.fields, name));
    expect(queries.length).toBeGreaterThan(4);
    for (const name of queries) {
      const row = rows.get(name);
      expect(row, `src/graphql/README.md "Public queries" has no row for Query.${name}`).toBeDefined();
      expect({ name, answered: row!.answered }).toEqual({ name, answered: fieldScope('Query', name) === 'catalog' });
    }
    expect(rows.get('Mutation')?.answered).toBe(false);
    for (const name of Object.keys(schema.getMutationType()!.getFields())) expect(fieldScope('Mutation', name)).not.toBe('catalog');
  });

  it('a row that says RunPod answers a field this project does not map is right, and the field is not public here', () => {
    for (const [name, row] of tableRows()) {
      if (name === 'Mutation') continue;
      expect({ name, mapped: Object.hasOwn(FIELD_MAP.Query!.fields, name) }).toEqual({ name, mapped: row.inSchema });
      if (!row.inSchema) expect(fieldScope('Query', name)).not.toBe('catalog');
    }
  });
});
