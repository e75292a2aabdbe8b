import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sseReader } from '../../src/rest/logs.js';

type Seen = Array<[data: string, id: string | undefined]>;

function ours(chunks: string[]): Seen {
  const seen: Seen = [];
  const feed = sseReader((data, id) => seen.push([data, id]));
  for (const chunk of chunks) feed(chunk);
  return seen;
}

function reference(chunks: string[]): Seen {
  const seen: Seen = [];
  const parser = createParser({ onEvent: (event) => seen.push([event.data, event.id]) });
  for (const chunk of chunks) parser.feed(chunk);
  return seen;
}

describe('the log stream\'s SSE reader', () => {
  it('reads data lines, ids, comments and every line ending, split anywhere', () => {
    const stream = ': hello\r\nid: 7\ndata: {"a":1}\n\nevent: x\rdata:two\rdata: lines\r\rretry: 10\ndata\n\nid: 8\n\nid\ndata: last\r\n\r\n';
    const expected: Seen = [['{"a":1}', '7'], ['two\nlines', undefined], ['', undefined], ['last', '']];
    expect(ours([stream])).toEqual(expected);
    for (let cut = 1; cut < stream.length; cut++) expect(ours([stream.slice(0, cut), stream.slice(cut)])).toEqual(expected);
  });

  it('dispatches exactly what eventsource-parser does', () => {
    const piece = fc.constantFrom('data', 'data:', 'data: ', 'id: ', 'id:', 'event: e', ': c', 'retry: 5', 'x', 'a b', '{"ts":1}', ':', ' ', '\0', '\n', '\r', '\r\n', '\n\n');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.array(fc.nat(60), { maxLength: 5 }), (pieces, cuts) => {
        const text = pieces.join('');
        const points = [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort((a, b) => a - b);
        const chunks = [0, ...points].map((start, n) => text.slice(start, points[n] ?? text.length));
        // A stream that ends inside a line may leave a half-read CR: both hold it back.
        expect(ours(chunks)).toEqual(reference(chunks));
      }),
      { numRuns: 500 },
    );
  });
});
