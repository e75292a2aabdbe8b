// The account resolvers and the map's derivations under fuzzing: a malformed REST answer is a typed
// field error (never a TypeError), a registry password is never in an answer or error in any
// spelling, even when the server echoes it, and template env values are never in a refusal or in
// an answer that does not select env.
import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ServerError } from '../../src/errors.js';
import { accountDerivations } from '../../src/field-map/account.js';
import { runAccountDocument } from '../graphql/account-executor.js';
import { recordingClient } from '../recording-client.js';
import { FUZZ_TIMEOUT_MS, params, spellingsOf } from './harness.js';

const image = 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04';

/** A REST object whose fields the derivations read hold anything at all. */
const restObject = fc.record(
  { env: fc.anything(), ports: fc.anything(), mounts: fc.oneof(fc.anything(), fc.record({ persistent: fc.anything() })), gpu: fc.anything(), cpu: fc.anything(), scaling: fc.anything(), dataCenterIds: fc.anything(), networkVolumes: fc.anything() },
  { requiredKeys: [] },
);

const isAnswerValue = (v: unknown): boolean =>
  v === null ||
  typeof v === 'string' ||
  typeof v === 'number' ||
  (Array.isArray(v) && v.every((e) => typeof e === 'object' && e !== null && typeof (e as { key: unknown }).key === 'string' && typeof (e as { value: unknown }).value === 'string'));

/** Printable secrets the redactor indexes (it scrubs values of 8 characters and more everywhere). */
const secretArb = fc.string({ minLength: 8, maxLength: 120, unit: fc.constantFrom(...'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!#%&*+-./:=?@_~'.split('')) }).map((s) => `Pw${s}`);

const leaks = (text: string, secret: string): string[] => spellingsOf(secret).filter((spelling) => text.includes(spelling));

describe('account resolvers: fuzz', () => {
  it('every derivation over any REST object answers a GraphQL value or throws a ServerError, never a TypeError', () => {
    fc.assert(
      fc.property(restObject, (rest) => {
        for (const [name, derive] of Object.entries(accountDerivations)) {
          try {
            const value = derive(rest);
            if (name === 'endpointComputeType') expect([null, 'GPU', 'CPU']).toContain(value);
            else expect(isAnswerValue(value), `${name} answered ${inspect(value)}`).toBe(true);
          } catch (err) {
            expect(err, name).toBeInstanceOf(ServerError);
          }
        }
      }),
      params(300),
    );
  });

  it(
    'a registry password is never in an answer or an error, in any spelling, even when the server echoes it',
    async () => {
      await fc.assert(
        fc.asyncProperty(secretArb, fc.nat(11), fc.boolean(), async (password, spelling, echo) => {
          const { rp, emulator } = recordingClient({}, { graphqlTransport: 'rest' });
          const echoed = spellingsOf(password)[spelling % spellingsOf(password).length]!;
          if (echo) {
            const problem = { title: 'Unprocessable Entity', status: 422, detail: `password ${echoed} is not accepted`, errors: [`$.password: ${echoed}`] };
            emulator.faults.inject({ match: 'POST /v2/registries', fault: { type: 'status', status: 422, body: problem } });
          }
          const result = await runAccountDocument(rp, `mutation($input: SaveRegistryAuthInput) { saveRegistryAuth(input: $input) { id name } }`, { input: { name: 'hub', username: 'me', password } });
          const seen = [JSON.stringify(result), ...(result.errors ?? []).flatMap((e) => [e.message, inspect(e.originalError, { depth: 8 }), JSON.stringify(e.originalError)])].join('\n');
          expect(leaks(seen, password)).toEqual([]);
          if (!echo) {
            expect(result.errors).toBeUndefined();
            const listed = await runAccountDocument(rp, `{ myself { containerRegistryCreds { id name registryAuth } } }`);
            expect(leaks(JSON.stringify(listed), password)).toEqual([]);
          }
        }),
        params(25),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'template env values are never in a refusal, nor in an answer that does not select env',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.uniqueArray(secretArb, { minLength: 1, maxLength: 4 }), fc.boolean(), async (values, refused) => {
          const { rp } = recordingClient({}, { graphqlTransport: 'rest' });
          const env = values.map((value, i) => ({ key: `K${i}`, value }));
          const input = { name: 't', imageName: image, dockerArgs: '', containerDiskInGb: 10, volumeInGb: 0, env, ...(refused && { readme: '# not in REST v2' }) };
          const result = await runAccountDocument(rp, `mutation($input: SaveTemplateInput) { saveTemplate(input: $input) { id name imageName ports } }`, { input });
          const seen = [JSON.stringify(result), ...(result.errors ?? []).map((e) => inspect(e.originalError, { depth: 8 }))].join('\n');
          for (const value of values) expect(seen.includes(value)).toBe(false);
          expect(Boolean(result.errors)).toBe(refused);
        }),
        params(25),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});
