import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stripProse, stripSdlProse } from '../../src/codegen/contracts.js';

const root = new URL('../../', import.meta.url);
const shared = new URL('../shared/reference/', root);
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
  it.each(['rest-v2.openapi.json', 'rest-v1.openapi.json'])('%s holds no description, summary, example or examples', (file) => {
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

  describe.skipIf(!haveShared)('against ../shared/reference', () => {
    it.each([
      ['rest-v2-openapi.json', 'rest-v2.openapi.json'],
      ['rest-v1-openapi.json', 'rest-v1.openapi.json'],
    ])('%s still matches its copy', (reference, copy) => {
      const made = `${JSON.stringify(stripProse(JSON.parse(read(new URL(reference, shared)))), null, 1)}\n`;
      expect(made === read(new URL(`src/contracts/${copy}`, root))).toBe(true);
    });

    it('graphql-reference-schema.graphql still matches its copy', () => {
      const made = stripSdlProse(read(new URL('graphql-reference-schema.graphql', shared)));
      expect(made === read(new URL('src/contracts/graphql-reference.graphql', root))).toBe(true);
    });
  });
});
