// Issue 43, item 3: reads inside one document are shared. podTemplate by id is read once per id;
// reads by id past a small count are one list read; deploys share the document's catalog read;
// creates are still sent once each, never merged. Counts at the fetch seam, not timings.
import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/index.js';
import { countDocuments } from './call-counts.js';

describe("issue 43's four documents: upstream calls against a careful client's", () => {
  it('30 aliased podTemplate(id): 1; 24 endpoints\' volumes: 2; with their data centres: 3; 10 deploys: 10 POST + 2 catalog reads', async () => {
    const rows = await countDocuments();
    expect(rows.map((r) => [r.document, r.answered, r.total])).toEqual(rows.map((r) => [r.document, true, r.careful]));
    const deploys = rows[3]!;
    expect(deploys.calls['POST /pods']).toBe(10);
    expect(deploys.calls['GET /catalog/gpus']).toBe(2);
  });
});

describe('reads by id', () => {
  function gatewayOver(templates: Array<{ id: string; name: string }>, publicOnes: Array<{ id: string; name: string }> = []) {
    const calls: string[] = [];
    const gateway = createGateway({
      tokens: 'read:shared-reads-token-0123456789abcdef',
      limits: { rate: false },
      client: {
        apiKey: 'rpa_SHAREDREADS0123456789ABCDEFGHIJKLMNOP',
        restUrl: 'http://127.0.0.1:9/v2',
        graphqlUrl: 'http://127.0.0.1:9/graphql',
        maxRetries: 0,
        fetch: async (input) => {
          const path = new URL(String(input)).pathname;
          calls.push(path);
          if (path === '/v2/templates') return Response.json({ templates, pagination: { nextCursor: null, hasNextPage: false } });
          const found = [...templates, ...publicOnes].find((t) => path === `/v2/templates/${t.id}`);
          return found ? Response.json(found) : Response.json({ error: 'not found' }, { status: 404 });
        },
      },
    });
    const ask = async (query: string) => {
      const response = await gateway.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer shared-reads-token-0123456789abcdef' }, body: JSON.stringify({ query }) }));
      return (await response.json()) as { data?: Record<string, { id: string; name: string } | null>; errors?: unknown[] };
    };
    return { ask, calls };
  }

  it('one id asked five times is one GET by id', async () => {
    const { ask, calls } = gatewayOver([{ id: 'tpl-a', name: 'a' }]);
    const answer = await ask(`{ ${Array.from({ length: 5 }, (_, i) => `t${i}: podTemplate(id: "tpl-a") { id name }`).join(' ')} }`);
    expect(calls).toEqual(['/v2/templates/tpl-a']);
    expect(Object.values(answer.data ?? {}).map((t) => t?.name)).toEqual(['a', 'a', 'a', 'a', 'a']);
  });

  it('many ids are one list read; an id the list lacks (a public template) is still read by id, and a missing one is null', async () => {
    const { ask, calls } = gatewayOver([{ id: 'tpl-a', name: 'a' }, { id: 'tpl-b', name: 'b' }], [{ id: 'pub-1', name: 'public' }]);
    const answer = await ask('{ a: podTemplate(id: "tpl-a") { name } b: podTemplate(id: "tpl-b") { name } p: podTemplate(id: "pub-1") { name } x: podTemplate(id: "gone") { name } }');
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ a: { name: 'a' }, b: { name: 'b' }, p: { name: 'public' }, x: null });
    expect([...calls].sort()).toEqual(['/v2/templates', '/v2/templates/gone', '/v2/templates/pub-1']);
  });

  it('a document that lists the templates answers podTemplate(id) from that list', async () => {
    const { ask, calls } = gatewayOver([{ id: 'tpl-a', name: 'a' }]);
    const answer = await ask('{ myself { podTemplates { id } } podTemplate(id: "tpl-a") { name } }');
    expect(answer.errors).toBeUndefined();
    expect(calls).toEqual(['/v2/templates']);
  });
});
