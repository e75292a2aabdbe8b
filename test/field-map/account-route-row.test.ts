// Issue 42 item 5: the account reads RunPod documents without a path stay decisive fields with no
// source, and adding the route once a path is published is one row per field. This test swaps such
// rows in (`read(route, path)`, src/field-map/types.ts) and runs them in process over a fetch seam:
// no resolver, no other file changes; the static pass, the executor and the docs follow the row.
import { afterEach, describe, expect, it } from 'vitest';
import { accountTypes } from '../../src/field-map/account.js';
import { describeSource } from '../../src/field-map/docs-table.js';
import { FIELD_MAP, read, type FieldEntry } from '../../src/field-map/index.js';
import { FIELD_REASONS } from '../../src/field-map/reasons.js';
import { createRunpodClient, TransportUnsupportedError } from '../../src/index.js';
import { captureError } from '../helpers.js';

const KEY = 'rpa_account_route_row_0123456789';
// Paths RunPod has not published: stand-ins for whatever its pages print once they do.
const ACCOUNT = 'GET /v2/account';
const BALANCE = 'GET /v2/account/balance';

const userFields = FIELD_MAP.User!.fields as Record<string, FieldEntry>;
const saved = { id: userFields.id!, email: userFields.email!, clientBalance: userFields.clientBalance! };
afterEach(() => Object.assign(userFields, saved));

function client() {
  const sent: string[] = [];
  const rp = createRunpodClient({
    apiKey: KEY,
    graphqlTransport: 'rest',
    rateLimits: false,
    maxRetries: 0,
    fetch: async (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      sent.push(`${init?.method ?? 'GET'} ${url.pathname}`);
      const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      if (url.pathname === '/v2/account') return json({ id: 'user_2f9a', email: null });
      if (url.pathname === '/v2/account/balance') return json({ balanceAmount: 41.25, billingMode: 'PREPAID' });
      return new Response(JSON.stringify({ title: 'Not Found', status: 404, detail: 'no such route' }), { status: 404, headers: { 'content-type': 'application/problem+json' } });
    },
  });
  return { rp, sent };
}

const DOC = '{ myself { id email clientBalance } }';

describe('the account reads', () => {
  it('today: decisive, no source, with the reason; the static pass names them and nothing is sent', async () => {
    for (const field of ['id', 'email', 'clientBalance', 'spendLimit', 'maxServerlessConcurrency', 'underBalance']) {
      const { source } = accountTypes.User!.fields[field]!;
      expect(source.kind, field).toBe('none');
      expect(FIELD_REASONS[`User.${field}`], field).toMatch(/documents "Get (your account|the account balance|account limits)".* without a path/);
    }
    const { rp, sent } = client();
    const err = await captureError(rp.graphql.request(DOC));
    expect(err).toBeInstanceOf(TransportUnsupportedError);
    expect((err as TransportUnsupportedError).fields).toEqual(['User.id', 'User.email', 'User.clientBalance']);
    expect(sent).toEqual([]);
  });

  it('once a path is published: one row per field, and the in-process executor answers them, each route read once per document', async () => {
    Object.assign(userFields, { id: read(ACCOUNT, 'id'), email: read(ACCOUNT, 'email'), clientBalance: read(BALANCE, 'balanceAmount') });
    const { rp, sent } = client();
    // A new executor is built per client, from the map as it is then.
    expect(await rp.graphql.request(DOC)).toEqual({ myself: { id: 'user_2f9a', email: null, clientBalance: 41.25 } });
    expect(sent).toEqual(['GET /v2/account', 'GET /v2/account/balance']);
    // The docs' table says where each comes from.
    expect(describeSource(userFields.id!)).toBe('`id` of `GET /v2/account` (read once per document)');
  });

  it('a read answered with the wrong type is a typed field error naming the field, never the value', async () => {
    Object.assign(userFields, { clientBalance: read(ACCOUNT, 'id') });
    const { rp } = client();
    const result = await rp.graphql.execute<{ myself: { clientBalance: unknown } }>('{ myself { clientBalance } }');
    expect(result.data?.myself.clientBalance).toBeNull();
    expect(result.errors?.map((e) => e.extensions?.code)).toEqual(['ServerError']);
    expect(result.errors![0]!.message).toContain('User.clientBalance');
    expect(JSON.stringify(result.errors)).not.toContain('user_2f9a');
  });

  it('a read names a parameterless GET of REST v2, or the map refuses it when the executor is built', async () => {
    Object.assign(userFields, { id: read('POST /v2/account', 'id') });
    const { rp } = client();
    await expect(rp.graphql.request('{ myself { id } }')).rejects.toThrow(/GET route of REST v2 without parameters/);
  });
});
