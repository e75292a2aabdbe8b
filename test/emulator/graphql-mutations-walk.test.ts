// The emulator never answers a mutation with a silent null: every Mutation field of schema.graphql,
// walked from the schema (so a field added later is walked too), either does what production does
// (an answer, or production's refusal: spot) or answers an error naming the field. A caller that
// reads `data.<field>.id` never meets a null the platform would not have sent.
import { readFileSync } from 'node:fs';
import {
  buildSchema,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLInputType,
  type GraphQLObjectType,
} from 'graphql';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmulator, IN_PROCESS_BASE } from '../../src/emulator/create-emulator.js';
import { GRAPHQL_SPOT_DISCONTINUED } from '../../src/emulator/errors.js';

const KEY = 'rpa_emulator_mutation_walk_0123456789';
const schema = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));
const emulator = createEmulator({ apiKeys: [KEY], clock: 'manual' });
afterAll(() => emulator.dispose());

async function graphql(query: string, variables?: Record<string, unknown>): Promise<any> {
  const res = await emulator.fetch(new Request(`${IN_PROCESS_BASE}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) }));
  return res.json();
}

/** Input scalars the platform coerces as objects (src/graphql/executable-schema.ts). */
const SCALAR_INPUTS: Readonly<Record<string, unknown>> = { deployCpuPodInput: { instanceId: 'cpu3c-2-4', imageName: 'walk-image' } };

/** A value of `type` with every required input field set (optional ones left out). */
function sample(type: GraphQLInputType): unknown {
  const inner = getNullableType(type);
  if (isListType(inner)) return [sample(inner.ofType)];
  if (Object.hasOwn(SCALAR_INPUTS, inner.name)) return SCALAR_INPUTS[inner.name];
  if (isEnumType(inner)) return inner.getValues()[0]!.value;
  if (isInputObjectType(inner)) {
    const out: Record<string, unknown> = {};
    for (const field of Object.values(inner.getFields())) if (isNonNullType(field.type) && field.defaultValue === undefined) out[field.name] = sample(field.type);
    return out;
  }
  if (isScalarType(inner)) {
    if (inner.name === 'Int') return 10;
    if (inner.name === 'Float') return 1;
    if (inner.name === 'Boolean') return false;
    return 'walk-value';
  }
  return null;
}

/** The smallest selection of a field's type: `id` when it has one, else its first leaf, else none. */
function selection(type: ReturnType<typeof getNamedType>): string {
  if (!type || !('getFields' in type) || isInputObjectType(type)) return '';
  const fields = (type as GraphQLObjectType).getFields();
  if (fields.id) return '{ id }';
  const leaf = Object.values(fields).find((f) => isScalarType(getNamedType(f.type)) || isEnumType(getNamedType(f.type)));
  return leaf ? `{ ${leaf.name} }` : '{ __typename }';
}

const mutations = Object.values(schema.getMutationType()!.getFields());

describe('emulator GraphQL: no mutation answers a silent null', () => {
  it.each(mutations.map((m) => [m.name, m] as const))('%s: an answer, or an error at its path', async (name, field) => {
    const defs = field.args.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
    const args = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
    const variables = Object.fromEntries(field.args.filter((a) => isNonNullType(a.type) || isInputObjectType(getNullableType(a.type)) || Object.hasOwn(SCALAR_INPUTS, getNamedType(a.type).name)).map((a) => [a.name, sample(a.type)]));
    const query = `mutation${defs ? `(${defs})` : ''} { ${name}${args ? `(${args})` : ''} ${selection(getNamedType(field.type))} }`;
    const body = await graphql(query, variables);
    const isVoid = getNamedType(field.type).name === 'Void';
    const answered = body.data?.[name] !== null && body.data?.[name] !== undefined;
    const refused = (body.errors ?? []).some((e: { path?: unknown[] }) => e.path?.[0] === name);
    // A Void mutation answers null on success; with these made-up ids it is refused (404) instead.
    expect({ name, answered: answered || (isVoid && !body.errors), refused, errors: body.errors?.length ?? 0 }).toSatisfy(
      (r: { answered: boolean; refused: boolean }) => r.answered || r.refused,
    );
    if (!answered) expect(body.errors?.[0]?.message, name).toBeTypeOf('string');
  });

  it('walks every mutation of the schema (a new one is walked without a change here)', () => {
    expect(mutations.map((m) => m.name)).toEqual(expect.arrayContaining(['podEditJob', 'podRentInterruptable', 'podBidResume', 'podFindAndDeployOnDemand', 'saveEndpoint']));
  });

  it('spot pods: production\'s refusal, never a null without an error', async () => {
    const rent = await graphql('mutation { podRentInterruptable(input: { bidPerGpu: 0.2, gpuTypeId: "NVIDIA RTX A4000", imageName: "img" }) { id } }');
    expect(rent).toEqual({ errors: [{ message: GRAPHQL_SPOT_DISCONTINUED, path: ['podRentInterruptable'], extensions: { code: 'RUNPOD' } }], data: { podRentInterruptable: null } });
    const resume = await graphql('mutation { podBidResume(input: { podId: "p", gpuCount: 1, bidPerGpu: 0.2 }) { id } }');
    expect(resume.errors[0].message).toBe(GRAPHQL_SPOT_DISCONTINUED);
  });
});
