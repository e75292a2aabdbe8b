import { readdirSync, readFileSync } from 'node:fs';
import { buildSchema, GraphQLSchema, parse, printSchema, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildExecutableSchema } from '../../src/graphql/executable-schema.js';

const root = new URL('../../', import.meta.url);
// The prose-free copy of the platform's schema kept in the project, so this runs on every clone.
const referencePath = new URL('src/contracts/graphql-reference.graphql', root);
const operationsDir = new URL('operations/', root);

const fragments = readFileSync(new URL('fragments.graphql', operationsDir), 'utf8');
// Listed from the folder, so an operation a user adds ("Bring your own operation") is checked too.
const operationFiles = readdirSync(operationsDir).filter((f) => f.endsWith('.graphql') && f !== 'fragments.graphql').sort();
const REQUIRED = ['deploy.graphql', 'gpuTypes.graphql', 'myself.graphql', 'pod.graphql', 'resume.graphql', 'stop.graphql', 'terminate.graphql'];

function errorsAgainst(schema: GraphQLSchema, file: string): string[] {
  const operation = readFileSync(new URL(file, operationsDir), 'utf8');
  const source = operation.includes('...') ? `${operation}\n${fragments}` : operation;
  return validate(schema, parse(source)).map((e) => e.message);
}

describe('operations/', () => {
  it('holds the required operations (the six, terminate, CPU deploy and the GPU type catalog)', () => {
    expect(REQUIRED.filter((f) => !operationFiles.includes(f))).toEqual([]);
  });

  const ownSchema = buildSchema(readFileSync(new URL('schema.graphql', root), 'utf8'));
  it.each(operationFiles)('%s validates against schema.graphql', (file) => {
    expect(errorsAgainst(ownSchema, file)).toEqual([]);
  });

  describe('against the platform reference schema', () => {
    const reference = buildSchema(readFileSync(referencePath, 'utf8'), { assumeValidSDL: true });
    it.each(operationFiles)('%s validates against the reference schema', (file) => {
      expect(errorsAgainst(reference, file)).toEqual([]);
    });

    it('keeps the nullability the real API has for the fields we rely on', () => {
      const own = buildExecutableSchema();
      const typeOf = (s: GraphQLSchema, type: string, field: string) =>
        String((s.getType(type) as unknown as { getFields(): Record<string, { type: unknown }> }).getFields()[field]?.type);
      const checks: Array<[string, string]> = [
        ['Pod', 'id'], ['Pod', 'name'], ['Pod', 'imageName'], ['Pod', 'env'], ['Pod', 'machineId'], ['Pod', 'desiredStatus'],
        ['Pod', 'costPerHr'], ['Pod', 'gpuCount'], ['Pod', 'machine'], ['Pod', 'runtime'], ['PodMachineInfo', 'podHostId'],
        ['GpuType', 'id'], ['GpuType', 'memoryInGb'], ['LowestPrice', 'stockStatus'], ['LowestPrice', 'availableGpuCounts'],
        ['GpuLowestPriceInput', 'gpuCount'], ['PodFindAndDeployOnDemandInput', 'env'], ['PodResumeInput', 'podId'], ['PodResumeInput', 'gpuCount'],
      ];
      for (const [type, field] of checks) expect(`${type}.${field}: ${typeOf(own, type, field)}`).toBe(`${type}.${field}: ${typeOf(reference, type, field)}`);
      // The live input refuses it (HTTP 400), whatever the published reference says.
      expect(typeOf(own, 'PodResumeInput', 'allowedCudaVersions')).toBe('undefined');
      // Selectable (src/contracts/graphql-provenance.json, "restored"): spot being gone makes it null, not invalid.
      expect(typeOf(own, 'LowestPrice', 'minimumBidPrice')).toBe(typeOf(reference, 'LowestPrice', 'minimumBidPrice'));
    });
  });

  it('persisted-documents.json holds every generated document, keyed by the first 16 hex digits of the SHA-256 of its text, the hash each document carries', async () => {
    const { createHash } = await import('node:crypto');
    const persisted = JSON.parse(readFileSync(new URL('persisted-documents.json', root), 'utf8')) as Record<string, string>;
    const generated = await import('../../src/graphql/__generated__/operations.js');
    const hashes = Object.entries(generated)
      .filter(([name]) => name.endsWith('Document'))
      .map(([, doc]) => (doc as { __meta__?: { hash?: string } }).__meta__?.hash);
    expect(hashes.length).toBeGreaterThan(5);
    expect(new Set(hashes)).toEqual(new Set(Object.keys(persisted)));
    for (const [hash, text] of Object.entries(persisted)) {
      expect(createHash('sha256').update(text).digest('hex').slice(0, 16)).toBe(hash);
      expect(validate(buildExecutableSchema(), parse(text))).toEqual([]);
    }
  });

  it('the executable schema (built from the generated compact form) is the part of the schema file that Query and Mutation reach', () => {
    const whole = buildSchema(readFileSync(new URL('schema.graphql', root), 'utf8'));
    const reachable = new GraphQLSchema({ query: whole.getQueryType(), mutation: whole.getMutationType(), types: [] });
    expect(printSchema(buildExecutableSchema())).toBe(printSchema(reachable));
    // Every root field of the platform's schema is there, with the supplement's.
    expect(Object.keys(buildExecutableSchema().getMutationType()!.getFields())).toContain('updateUserSettings');
    expect(Object.keys(buildExecutableSchema().getMutationType()!.getFields())).toContain('saveTemplate');
  });
});
