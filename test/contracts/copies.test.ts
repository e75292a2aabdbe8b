import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTRACTS, madeCopy, mergeLayer, shared, stripProse, stripSdlProse } from '../../src/codegen/contracts.js';

const root = new URL('../../', import.meta.url);
const haveShared = existsSync(shared);
const read = (path: string | URL) => readFileSync(path, 'utf8');

const PROSE = new Set(['description', 'summary', 'example', 'examples', 'x-codeSamples']);

/** Every keyword-position key of an OpenAPI document (property names under `properties` are not keywords). */
function keywordKeys(value: unknown, parent = '', out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) keywordKeys(item, '', out);
  else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const isName = ['properties', 'patternProperties', '$defs', 'schemas'].includes(parent);
      if (!isName) out.add(key);
      keywordKeys(child, isName ? '' : key, out);
    }
  }
  return out;
}

describe('prose-free contract copies in src/contracts/', () => {
  it.each(['rest-v2.openapi.json'])('%s holds no description, summary, example or examples', (file) => {
    const keys = keywordKeys(JSON.parse(read(new URL(`src/contracts/${file}`, root))));
    expect([...keys].filter((k) => PROSE.has(k))).toEqual([]);
    expect(keys.has('paths')).toBe(true);
  });

  it('the GraphQL reference copy holds no descriptions or comments', () => {
    const sdl = read(new URL('src/contracts/graphql-reference.graphql', root));
    expect(sdl).not.toMatch(/"""|^\s*#/m);
    expect(sdl).toContain('input PodResumeInput');
  });

  it('stripping keeps a schema property that happens to be named like a prose keyword', () => {
    const doc = { description: 'x', properties: { summary: { type: 'string', description: 'y' } } };
    expect(stripProse(doc)).toEqual({ properties: { summary: { type: 'string' } } });
  });

  it('stripping SDL drops descriptions and keeps types', () => {
    expect(stripSdlProse('"""doc"""\ntype A {\n  "field doc"\n  b: Int # comment\n}\n')).toBe('type A {\n  b: Int\n}\n');
  });

  it('a layer replaces methods and named components one by one, and a dangling $ref fails the merge', () => {
    const base = { paths: { '/a': { get: { operationId: 'a' }, post: { operationId: 'b' } } }, components: { schemas: { A: { type: 'string' }, B: { type: 'integer' } } } };
    const merged = mergeLayer(base, { paths: { '/a': { get: { operationId: 'a2' } }, '/c': { get: { operationId: 'c' } } }, components: { schemas: { A: { type: 'number' } } } });
    expect(merged).toEqual({
      paths: { '/a': { get: { operationId: 'a2' }, post: { operationId: 'b' } }, '/c': { get: { operationId: 'c' } } },
      components: { schemas: { A: { type: 'number' }, B: { type: 'integer' } } },
    });
    expect(base.paths['/a'].get.operationId).toBe('a');
    expect(() => mergeLayer(base, { components: { schemas: { C: { $ref: '#/components/schemas/Gone' } } } })).toThrow('#/components/schemas/Gone');
  });

  it('the merged REST v2 copy holds the supplement, and the provenance table names every piece of it', () => {
    const copy = JSON.parse(read(new URL('src/contracts/rest-v2.openapi.json', root)));
    const supplement = JSON.parse(read(new URL('src/contracts/rest-v2-supplement.json', root)));
    const provenance = JSON.parse(read(new URL('src/contracts/rest-v2-provenance.json', root))) as { pieces: Array<{ piece: string; from: string | string[] }> };
    const named = provenance.pieces.map((p) => p.piece).join('\n');
    for (const [path, item] of Object.entries(supplement.paths as Record<string, Record<string, unknown>>)) {
      expect(named).toContain(`paths.${path}`);
      for (const [method, op] of Object.entries(item)) expect(copy.paths[path][method]).toEqual(op);
    }
    for (const [name, schema] of Object.entries(supplement.components.schemas as Record<string, unknown>)) {
      expect(named).toMatch(new RegExp(`\\b${name}\\b`));
      expect(copy.components.schemas[name]).toEqual(schema);
    }
    for (const piece of provenance.pieces) expect(String(piece.from)).toMatch(/@[0-9a-f]{40}|documented facts/);
    // Exec is in no readable contract: it says so where it is defined.
    expect(copy.paths['/v2/pods/{id}/exec'].post['x-documented-facts']).toBe(true);
    // The delta's own notes on its sources stay out of the copy.
    expect(read(new URL('src/contracts/rest-v2.openapi.json', root))).not.toMatch(/x-from|x-parameters-inferred|x-response-inferred/);
  });

  describe.skipIf(!haveShared)('against ../shared/reference', () => {
    it.each(CONTRACTS.map((c) => [c.reference, c] as const))('%s still matches its copy', (_reference, c) => {
      expect(madeCopy(c) === read(new URL(c.copy, root))).toBe(true);
    });
  });
});
