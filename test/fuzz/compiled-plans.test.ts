// The in-process executor's compiled plans (src/graphql/in-process/plan.ts) against graphql-js's
// `execute`: random queries over the pod's fields (aliases, repeated fields, named and inline
// fragments, @include/@skip on literals and variables, __typename), on REST v2 pods of any shape,
// give the same result from both ways, byte for byte once printed: data in the same key order,
// the same errors (message, path, extensions, cause), the same warnings, and the same reads.
import fc from 'fast-check';
import { getNamedType, isObjectType, type ExecutionResult, type GraphQLObjectType } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import { NotFoundError, ServerError, createRunpodClient } from '../../src/index.js';
import { FIELD_MAP } from '../../src/field-map/index.js';
import { buildExecutableSchema, isDocument } from '../../src/graphql/executable-schema.js';
import { createInProcessExecutor } from '../../src/graphql/in-process/executor.js';
import type { PodsApi } from '../../src/pods/types.js';
import type { RunpodRest } from '../../src/rest/rest-client.js';
import type { RestRequester } from '../../src/rest/rest-request.js';
import { counted, FUZZ_TIMEOUT_MS, params } from './harness.js';

const schema = buildExecutableSchema();

/** The fields of `type` a plan may hold below the root: read from the parent (path, derived, no source), with no required argument. */
function plannable(type: GraphQLObjectType): string[] {
  return Object.values(type.getFields())
    .filter((f) => ['path', 'derived', 'none'].includes(FIELD_MAP[type.name]?.fields[f.name]?.source.kind ?? '') && f.args.every((a) => a.defaultValue !== undefined || !String(a.type).endsWith('!')))
    .map((f) => f.name);
}

/** A selection, before it is printed (a spread names a fragment by its type, depth and number). */
type Sel =
  | { kind: 'field'; name: string; alias: number | undefined; dir: number; sub: Sel[] }
  | { kind: 'typename'; alias: number | undefined }
  | { kind: 'inline'; typed: boolean; dir: number; sub: Sel[] }
  | { kind: 'spread'; id: number; dir: number; sub: Sel[] };

/** Directives: none (most often), on a variable, or on a literal. */
const DIRECTIVES = ['', '', '', '@include(if: $yes)', '@skip(if: $yes)', '@include(if: false)', '@skip(if: true)', '@include(if: $no)', '@skip(if: $no) @include(if: $yes)'];
const dir = fc.nat({ max: DIRECTIVES.length - 1 });
const alias = fc.option(fc.nat({ max: 1 }), { nil: undefined });

function selections(type: GraphQLObjectType, depth: number): fc.Arbitrary<Sel[]> {
  const names = plannable(type);
  if (names.length === 0) return fc.constant([{ kind: 'typename', alias: undefined }]);
  const field: fc.Arbitrary<Sel> = fc.constantFrom(...names).chain((name) => {
    const named = getNamedType(type.getFields()[name]!.type);
    const sub = isObjectType(named) ? (depth < 3 ? selections(named, depth + 1) : fc.constant<Sel[]>([{ kind: 'typename', alias: undefined }])) : fc.constant<Sel[]>([]);
    return fc.record({ kind: fc.constant('field' as const), name: fc.constant(name), alias, dir, sub });
  });
  const nested = depth < 3 ? selections(type, depth + 1) : fc.constant<Sel[]>([{ kind: 'typename', alias: undefined }]);
  const item: fc.Arbitrary<Sel> = fc.oneof(
    { weight: 8, arbitrary: field },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('typename' as const), alias }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('inline' as const), typed: fc.boolean(), dir, sub: nested }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('spread' as const), id: fc.nat({ max: 1 }), dir, sub: nested }) },
  );
  return fc.array(item, { minLength: 1, maxLength: 6 });
}

/** The document's text: the root fields, and each fragment defined once (its first spread's selection). */
function print(roots: Array<{ alias: number | undefined; dir: number; sub: Sel[] }>, rootTypename: boolean): string {
  const fragments = new Map<string, string>();
  const used = new Set<string>();
  const directive = (n: number) => {
    const text = DIRECTIVES[n]!;
    for (const v of text.match(/\$\w+/g) ?? []) used.add(v);
    return text ? ` ${text}` : '';
  };
  const body = (type: GraphQLObjectType, sels: Sel[], depth: number): string =>
    `{ ${sels
      .map((s) => {
        if (s.kind === 'typename') return `${s.alias === undefined ? '' : `t${s.alias}: `}__typename`;
        if (s.kind === 'field') {
          const named = getNamedType(type.getFields()[s.name]!.type);
          return `${s.alias === undefined ? '' : `${s.name}_${s.alias}: `}${s.name}${directive(s.dir)}${isObjectType(named) ? ` ${body(named, s.sub, depth + 1)}` : ''}`;
        }
        if (s.kind === 'inline') return `...${s.typed ? ` on ${type.name}` : ''}${directive(s.dir)} ${body(type, s.sub, depth + 1)}`;
        const name = `F_${type.name}_${depth}_${s.id}`;
        if (!fragments.has(name)) {
          fragments.set(name, '');
          fragments.set(name, `fragment ${name} on ${type.name} ${body(type, s.sub, depth + 1)}`);
        }
        return `...${name}${directive(s.dir)}`;
      })
      .join(' ')} }`;
  const pod = schema.getType('Pod') as GraphQLObjectType;
  const fields = roots.map((r, i) => `${i === 0 && r.alias === undefined ? '' : `p${i}: `}pod(input: { podId: $id })${directive(r.dir)} ${body(pod, r.sub, 0)}`);
  if (rootTypename) fields.push('__typename');
  const defs = ['$id: String!', ...(used.has('$yes') ? ['$yes: Boolean!'] : []), ...(used.has('$no') ? ['$no: Boolean! = false'] : [])];
  return `query Planned(${defs.join(', ')}) { ${fields.join(' ')} }\n${[...fragments.values()].join('\n')}`;
}

const documents = fc
  .tuple(fc.array(fc.record({ alias, dir, sub: selections(schema.getType('Pod') as GraphQLObjectType, 0) }), { minLength: 1, maxLength: 2 }), fc.boolean())
  .map(([roots, typename]) => print(roots, typename));

/** A wrong value for a REST field. */
const wrongValue = fc.oneof(fc.constant(null), fc.integer(), fc.double(), fc.boolean(), fc.string({ maxLength: 4 }), fc.constant({ x: 1 }), fc.constant([1, 'a']), fc.constant([{ util: 'x' }]));

/** What the REST read answers: the pod, changed at a few paths, or an error. */
const answers = fc.record({
  outcome: fc.constantFrom('pod', 'pod', 'pod', 'pod', 'missing', 'failed'),
  changes: fc.array(fc.tuple(fc.nat(), fc.boolean(), wrongValue), { maxLength: 3 }),
  yes: fc.boolean(),
});

/** Every path of a JSON value, objects and arrays walked. */
function paths(value: unknown, at: string[] = []): string[][] {
  if (value === null || typeof value !== 'object') return [at];
  return [at, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...at, k]))];
}

function changed(pod: Record<string, unknown>, changes: Array<[number, boolean, unknown]>): Record<string, unknown> {
  const copy = structuredClone(pod);
  const all = paths(copy).filter((p) => p.length > 0);
  for (const [n, remove, value] of changes) {
    const path = all[n % all.length]!;
    let at = copy as Record<string, unknown>;
    for (const step of path.slice(0, -1)) {
      if (at[step] === null || typeof at[step] !== 'object') break;
      at = at[step] as Record<string, unknown>;
    }
    if (remove) delete at[path.at(-1)!];
    else at[path.at(-1)!] = value;
  }
  return copy;
}

/** A result as it is compared: printed, so key order counts; each error with its cause's class. */
const printed = (result: ExecutionResult) =>
  JSON.stringify({
    data: result.data,
    errors: result.errors?.map((e) => ({ message: e.message, path: e.path, extensions: e.extensions, cause: e.originalError?.constructor.name })),
    extensions: result.extensions,
  });

describe('compiled plans against graphql-js execute', () => {
  let restPod: Record<string, unknown>;
  beforeAll(async () => {
    // The REST v2 pod as the emulator answers it, so the shapes are production's.
    const emulator = createEmulator({ podStartupMs: 0 });
    const options = emulator.clientOptions();
    const rp = createRunpodClient({ ...options, rateLimits: false });
    const { id } = await rp.rest.pods.create({ name: 'plan', image: 'runpod/base', gpu: { id: 'NVIDIA RTX A4000' }, ports: ['22/tcp', '8888/http'], env: { A: 'b' } });
    restPod = (await (await options.fetch!(`${options.restUrl}/pods/${id}`, { headers: { authorization: `Bearer ${options.apiKey}` } })).json()) as Record<string, unknown>;
    emulator.dispose();
  });

  it('give the same data, errors, error paths, nulls and warnings, with the same reads', async () => {
    let answered = 0;
    let failedFields = 0;
    const executor = (plans: boolean, answer: () => Promise<unknown>, reads: { n: number }) =>
      createInProcessExecutor(
        {
          pods: {} as PodsApi,
          requester: {} as RestRequester,
          rest: {
            pods: {
              get: () => {
                reads.n++;
                return answer();
              },
            },
            catalog: {},
          } as unknown as RunpodRest,
        },
        { plans },
      );
    await fc.assert(
      fc.asyncProperty(
        documents,
        answers,
        counted('graphql-compiled-plans', async (text, { outcome, changes, yes }) => {
          const pod = changed(restPod, changes);
          const answer = async () => {
            if (outcome === 'missing') throw new NotFoundError('GET /pods/{id} failed with HTTP 404', { status: 404 });
            if (outcome === 'failed') throw new ServerError('GET /pods/{id} failed with HTTP 500', { status: 500 });
            return structuredClone(pod);
          };
          const planReads = { n: 0 };
          const executeReads = { n: 0 };
          const planned = executor(true, answer, planReads);
          const executed = executor(false, answer, executeReads);
          const document = planned.prepare(text);
          if (!isDocument(document)) throw new Error(`invalid document: ${document.map((e) => e.message).join('; ')}\n${text}`);
          const variables = { id: String(restPod.id), yes };
          const a = await planned.run({ document, variables });
          const b = await executed.run({ document, variables });
          expect(printed(a), text).toBe(printed(b));
          expect(planReads.n).toBe(executeReads.n);
          // graphql-js's data objects have no prototype, a plan's are plain: the answer was the plan's.
          if (b.errors) failedFields++;
          else if (a.data && Object.getPrototypeOf(a.data) === Object.prototype) answered++;
        }),
      ),
      params(200),
    );
    // Both ways were exercised: answers plans gave, and errors graphql-js gave after a plan met one.
    expect(answered).toBeGreaterThan(20);
    expect(failedFields).toBeGreaterThan(20);
  }, FUZZ_TIMEOUT_MS * 2);
});
