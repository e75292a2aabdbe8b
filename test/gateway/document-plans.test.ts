// The gateway's per-document plans (document-plans.ts): what a repeated document runs and the
// fields beyond each scope are kept, but never shared across scopes or operation names, and a
// caller cannot grow them with operation names the document lacks.
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExecutableSchema } from '../../src/graphql/executable-schema.js';
import { beyondScope, keptPlans, operationOf } from '../../src/gateway/document-plans.js';
import { bearer, READ_TOKEN, startRig, WRITE_TOKEN, type GatewayRig } from './harness.js';

const TWO = 'query Names { myself { pods { id name } } } query Envs { myself { pods { id env } } }';

describe('document plans', () => {
  it('keeps one plan per operation the document has, and none for a name it lacks', () => {
    const document = parse(TWO);
    for (let i = 0; i < 500; i++) expect(operationOf(document, `Made${i}`)).toBeUndefined();
    expect(keptPlans(document)).toBe(0);
    expect(operationOf(document, 'Names')?.name?.value).toBe('Names');
    expect(operationOf(document, 'Envs')?.name?.value).toBe('Envs');
    // Several operations and no name: none is picked, and nothing is kept.
    expect(operationOf(document, undefined)).toBeUndefined();
    expect(keptPlans(document)).toBe(2);
    // An empty name is a name the document lacks, never the unnamed request's plan.
    const single = parse('{ myself { id } }');
    expect(operationOf(single, undefined)).toBeDefined();
    expect(operationOf(single, '')).toBeUndefined();
  });

  it('keeps the fields beyond each scope apart, whichever scope asked first', () => {
    const schema = buildExecutableSchema();
    const document = parse(TWO);
    const envs = operationOf(document, 'Envs')!;
    expect(beyondScope(schema, document, envs, 'write')).toEqual([]);
    expect(beyondScope(schema, document, envs, 'read')).toEqual(['Pod.env']);
    expect(beyondScope(schema, document, envs, 'write')).toEqual([]);
    expect(beyondScope(schema, document, operationOf(document, 'Names')!, 'read')).toEqual([]);
    // Shared and frozen: no request can change what the next one reads.
    expect(Object.isFrozen(beyondScope(schema, document, envs, 'read'))).toBe(true);
  });
});

describe('document plans at the gateway', () => {
  let rig: GatewayRig;
  beforeAll(async () => {
    rig = await startRig({ tokens: `read:${READ_TOKEN},write:${WRITE_TOKEN}` });
  });
  afterAll(() => rig.close());

  it('a read token is refused Pod.env after a write token ran the same text, and each operation name gets its own plan', async () => {
    for (let i = 0; i < 3; i++) expect((await rig.post({ query: TWO, operationName: 'Envs' }, bearer(WRITE_TOKEN))).status).toBe(200);
    const sent = rig.upstreamCalls.length;
    const refused = await rig.post({ query: TWO, operationName: 'Envs' }, bearer(READ_TOKEN));
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('Pod.env');
    expect(rig.upstreamCalls.length).toBe(sent);
    // The same text, the other operation: the read token runs it.
    expect((await rig.post({ query: TWO, operationName: 'Names' }, bearer(READ_TOKEN))).status).toBe(200);
    // A name the text lacks, after both ran: still refused as unknown.
    const unknown = await rig.post({ query: TWO, operationName: 'Other' }, bearer(WRITE_TOKEN));
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('no operation named');
  });
});
