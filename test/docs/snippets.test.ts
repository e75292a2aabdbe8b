import { describe, expect, it } from 'vitest';
import { taggedSnippets } from './snippets.js';

describe('taggedSnippets', () => {
  it('takes only ts blocks with the marker on the line right above, with the line of their first code line', () => {
    const markdown = [
      '# Title', // 1
      '<!-- run -->', // 2
      '```ts', // 3
      'const a = 1;', // 4
      '```', // 5
      '```ts', // 6: no marker
      'const b = 2;',
      '```',
      '<!-- run -->', // 9: a marker above a non-ts block
      '```sh',
      'npm test',
      '```',
      '<!-- run -->', // 13
      '```ts', // 14
      'const c = 3;', // 15
      'const d = 4;',
      '```',
    ].join('\n');
    expect(taggedSnippets(markdown)).toEqual([
      { line: 4, code: 'const a = 1;\n' },
      { line: 15, code: 'const c = 3;\nconst d = 4;\n' },
    ]);
  });

  it('ignores an unclosed block', () => {
    expect(taggedSnippets('<!-- run -->\n```ts\nconst a = 1;\n')).toEqual([]);
  });
});
