import { describe, expect, it } from 'vitest';
import { Validator } from '@cfworker/json-schema';
import { ValidationError } from '../../src/errors.js';
import { requestRules, type RequestSchemaName } from '../../src/rest/__generated__/request-rules.js';
import { checkRequestBody } from '../../src/rest/request-check.js';
import { compileRequestRules, requestSchemaNames } from '../../src/codegen/request-rules.js';
import { contract } from './v2-contract.js';

// The compact rules the client checks before sending must agree with the contract's own schemas:
// what the server would refuse is refused before sending, and what it accepts is sent.

const valid: Record<RequestSchemaName, Record<string, unknown>> = {
  CreatePodRequest: { name: 'p', image: 'i', gpu: { id: 'g', count: 1, allowedCudaVersions: ['12.4'] }, env: { A: '1' }, ports: ['22/tcp'], cloud: 'SECURE', mounts: { persistent: { size: 20, path: '/w' } } },
  UpdatePodRequest: { name: 'p', image: 'i', disk: 20, locked: true, mounts: { network: [{ volumeId: 'v', path: '/w' }] } },
  PodActionRequest: { action: 'stop' },
  CreateEndpointRequest: { name: 'e', image: 'i', type: 'QUEUE', scaling: { type: 'QUEUE_DELAY', queueDelay: 4 }, gpu: { pools: ['ADA_24'], count: 1 }, workers: { min: 0, max: 3, idleTimeout: 5 }, flashboot: 'OFF' },
  UpdateEndpointRequest: { workers: { max: 4 }, gpu: { pools: ['ADA_24'], excludedTypes: ['NVIDIA L4'] }, timeout: 1000 },
  CreateTemplateRequest: { name: 't', image: 'i', category: 'NVIDIA', public: false, allowedCudaVersions: ['12.8'] },
  UpdateTemplateRequest: { name: 't', startSsh: true },
  CreateNetworkVolumeRequest: { name: 'v', size: 10, dataCenter: 'EU-RO-1', type: 'STANDARD' },
  UpdateNetworkVolumeRequest: { size: 4096 },
  CreateRegistryRequest: { name: 'r', username: 'u', password: 'p' },
  CreateDelegationRequest: { resource: 'arn', name: 'n' },
  UpdateSshKeysRequest: { keys: ['ssh-ed25519 AAAA me@host'] },
  CreateClusterRequest: { name: 'c', type: 'RAY', image: 'i', compute: { gpuTypeId: 'g', gpuCountPerPod: 1, podCount: 2 } },
  UpdateClusterRequest: { name: 'c' },
  CreateSecretRequest: { name: 'HF_TOKEN', value: 'v', description: 'd' },
  UpdateSecretRequest: { value: 'v2', description: '' },
  ExecPodRequest: { command: ['echo', 'hi'], timeoutSeconds: 20, cwd: '/workspace' },
};

const WRONG_VALUES: unknown[] = [null, 'x', -1, 0.5, 1e6, true, [], {}, [''], { zz: 1 }];

function contractAccepts(schema: RequestSchemaName, body: unknown): boolean {
  return new Validator({ $ref: `#/components/schemas/${schema}`, components: contract.components }, '2020-12', false).validate(body).valid;
}
function clientAccepts(schema: RequestSchemaName, body: unknown): boolean {
  try {
    checkRequestBody(schema, body);
    return true;
  } catch (err) {
    if (err instanceof ValidationError) return false;
    throw err;
  }
}

/** The valid body, and variants: each key dropped, set to each wrong value, and an unknown key added (top level and one level down). */
function variants(body: Record<string, unknown>): unknown[] {
  const out: unknown[] = [body, { ...body, unknownField: 1 }];
  if (body.type === 'QUEUE') {
    out.push({ ...body, type: 'LOAD_BALANCER' }, { ...body, type: 'LOAD_BALANCER', scaling: { type: 'REQUEST_COUNT', requestCount: 2 } });
  }
  for (const key of Object.keys(body)) {
    const { [key]: _dropped, ...rest } = body;
    out.push(rest);
    for (const wrong of WRONG_VALUES) out.push({ ...body, [key]: wrong });
    const inner = body[key];
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) {
      out.push({ ...body, [key]: { ...inner, unknownField: 1 } });
      for (const innerKey of Object.keys(inner)) for (const wrong of WRONG_VALUES) out.push({ ...body, [key]: { ...inner, [innerKey]: wrong } });
    }
  }
  return out;
}

describe('request rules compiled from the contract agree with the contract', () => {
  it('covers every request body schema of the contract', () => {
    const bodies = new Set(
      Object.values(contract.paths).flatMap((ops) =>
        Object.values(ops).flatMap((op) => {
          const ref = (op.requestBody?.content['application/json']?.schema as { $ref?: string } | undefined)?.$ref;
          return ref ? [ref.split('/').pop()!] : [];
        }),
      ),
    );
    expect([...bodies].sort()).toEqual(Object.keys(requestRules).sort());
  });

  it.each(Object.keys(valid) as RequestSchemaName[])('%s', (schema) => {
    const disagreements: string[] = [];
    let refused = 0;
    for (const body of variants(valid[schema])) {
      const server = contractAccepts(schema, body);
      if (!server) refused++;
      if (server !== clientAccepts(schema, body)) disagreements.push(`${JSON.stringify(body)}: contract ${server ? 'accepts' : 'refuses'}`);
    }
    expect(contractAccepts(schema, valid[schema])).toBe(true);
    expect(refused).toBeGreaterThan(3);
    expect(disagreements).toEqual([]);
  });
});

describe('every keyword of the contract is compiled or codegen fails', () => {
  const contractWith = (schema: Record<string, unknown>) => ({
    paths: { '/v2/x': { post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/X' } } } } } } },
    components: { schemas: { X: { type: 'object', properties: { a: schema } } } },
  });

  it.each([{ maxProperties: 2 }, { multipleOf: 2 }, { exclusiveMinimum: 0 }, { not: { type: 'string' } }, { patternProperties: {} }])('%o fails codegen, naming the keyword', (schema) => {
    const keyword = Object.keys(schema)[0]!;
    expect(() => compileRequestRules(contractWith(schema))).toThrow(new RegExp(`"${keyword}" at #/components/schemas/X\\.properties\\.a`));
  });

  it('an "if" of a shape it does not compile fails codegen', () => {
    expect(() => compileRequestRules(contractWith({ type: 'object', if: { properties: { a: { minimum: 1 } } }, then: { required: ['b'] } }))).toThrow('cannot compile the "if"');
  });

  it('maxLength is enforced in characters, before sending', () => {
    const rules = compileRequestRules(contractWith({ type: 'string', maxLength: 3 }));
    expect(rules.X!.k.a).toEqual({ t: ['string'], maxLen: 3 });
    expect(clientAccepts('CreateSecretRequest', { name: 'N'.repeat(191), value: 'v' })).toBe(true);
    expect(contractAccepts('CreateSecretRequest', { name: 'N'.repeat(192), value: 'v' })).toBe(false);
    expect(() => checkRequestBody('CreateSecretRequest', { name: 'N'.repeat(192), value: 'v' })).toThrow(/body\.name.*at most 191 characters, got 192/);
    expect(() => checkRequestBody('CreateRegistryRequest', { name: 'r', username: 'u', password: 'p'.repeat(16385) })).toThrow(/body\.password.*at most 16384/);
    // Four characters outside the BMP are eight UTF-16 units but four characters.
    expect(clientAccepts('CreateSecretRequest', { name: 'N', value: 'v', description: '😀'.repeat(65535) })).toBe(true);
  });

  it('the request body names come from the contract, not a hand-kept list', () => {
    expect(requestSchemaNames(contract as never)).toEqual(Object.keys(requestRules));
  });
});
