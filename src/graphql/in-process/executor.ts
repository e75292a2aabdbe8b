// schema.graphql executed in process over REST v2 (graphql-js `execute`), loaded on first use.
// One generic resolver follows the field map (src/field-map/): a `path` reads the parent's REST v2
// object, a `derived` field calls its named derivation, a `call` uses the resolver table (pods and
// the catalog here, the account's resources in account-resolvers.ts), and a field with no source
// is null: with one error naming it when it is decisive, with one warning in the answer's
// `extensions.warnings` when it is informational. Every resolver is made once per field when the schema is
// built, so a repeated document looks nothing up per field.
import {
  execute,
  getNamedType,
  getNullableType,
  getOperationAST,
  GraphQLEnumType,
  GraphQLError,
  GraphQLObjectType,
  GraphQLScalarType,
  isListType,
  isNonNullType,
  isObjectType,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';
import { RunpodError, ServerError, TransportUnsupportedError } from '../../errors.js';
import { DERIVATIONS, FIELD_MAP } from '../../field-map/index.js';
import { NoSourceWarnings, readPath, readRoutePath, withWarnings, WrongRestShape, type FieldEntry } from '../../field-map/types.js';
import type { PodsApi } from '../../pods/types.js';
import type { RunpodRest } from '../../rest/rest-client.js';
import type { RestRequester } from '../../rest/rest-request.js';
import type { CallOptions } from '../../transport/options.js';
import { redactText, scopeOf } from '../../transport/redact.js';
import { SHARED_READS, type SharedReads } from '../../transport/shared-reads.js';
import { buildExecutableSchema, createDocumentPreparer, isDocument, type PreparedDocument } from '../executable-schema.js';
import { accountResolvers } from './account-resolvers.js';
import { createPodResolvers } from './pod-resolvers.js';
import type { Resolver, ResolverContext, ResolverTable } from './resolver-types.js';
import { createPlanner, type PlannedField, type SyncRead } from './plan.js';
import { unanswerable, type Unanswerable } from './static-pass.js';

/** What the executor reads through: the client's REST v2 surfaces and rp.pods. */
export interface InProcessDeps {
  /** The client's rp.pods: on REST v2 whenever this executor runs (it runs only then). */
  readonly pods: PodsApi;
  readonly rest: RunpodRest;
  readonly requester: RestRequester;
}

/** One operation to run. */
export interface InProcessRequest {
  readonly document: DocumentNode;
  readonly variables?: Record<string, unknown> | undefined;
  readonly operationName?: string | undefined;
  readonly options?: CallOptions | undefined;
}

export interface InProcessExecutor {
  /** Parses and validates a document against schema.graphql, once per distinct text. */
  prepare(source: string): PreparedDocument;
  /** The operation `operationName` picks (or the only one), or undefined. */
  operation(document: DocumentNode, operationName?: string): ReturnType<typeof getOperationAST>;
  /** The fields of the picked operation with no REST v2 source (the static pass), once per document. */
  unanswerable(document: DocumentNode, operationName?: string): Unanswerable;
  run(request: InProcessRequest): Promise<ExecutionResult>;
}

/** Where in-process answers say they came from (no URL: nothing was sent over GraphQL). */
const IN_PROCESS_URL = 'in-process:schema.graphql';

/** The error of a field with no REST v2 source. */
export function noSourceError(fields: readonly string[]): TransportUnsupportedError {
  return new TransportUnsupportedError(
    fields,
    `${fields.join(', ')} ${fields.length > 1 ? 'have' : 'has'} no REST v2 source, so ${fields.length > 1 ? 'they' : 'it'} cannot be answered in process (RunPod's GraphQL is retired or not in use); leave ${fields.length > 1 ? 'them' : 'it'} out of the document`,
  );
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A check of one value against a GraphQL output type: what REST v2 answered, as the schema types it. */
type Check = (value: unknown) => boolean;

function leafCheck(type: GraphQLOutputType): Check {
  const named = getNamedType(type);
  if (isObjectType(named) || !(named instanceof GraphQLScalarType || named instanceof GraphQLEnumType)) return isRecord;
  if (named instanceof GraphQLEnumType) return (v) => typeof v === 'string' && named.getValue(v) !== undefined;
  switch (named.name) {
    case 'Int':
      return (v) => Number.isInteger(v);
    case 'Float':
      return (v) => typeof v === 'number' && Number.isFinite(v);
    case 'String':
    case 'DateTime':
    case 'Date':
      return (v) => typeof v === 'string';
    case 'Boolean':
      return (v) => typeof v === 'boolean';
    case 'ID':
      return (v) => typeof v === 'string' || Number.isInteger(v);
    default:
      return () => true;
  }
}

/** Whether `value` fits `type` (list items one level deep; null only where the type allows it). */
function fits(type: GraphQLOutputType): Check {
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    const item = nullable.ofType;
    const itemNonNull = isNonNullType(item);
    const check = leafCheck(item);
    return (v) => Array.isArray(v) && v.every((x) => (x === null || x === undefined ? !itemNonNull : check(x)));
  }
  return leafCheck(type);
}

/** The REST path a field reads, for its error. */
function readsOf(entry: FieldEntry | undefined): string {
  const source = entry?.source;
  if (source?.kind === 'path') return source.path;
  if (source?.kind === 'derived') return source.reads.join(', ') || 'its parent';
  return 'its answer';
}

/** A ServerError naming the field and the REST v2 path that answered it wrongly (never the value: it may be a secret). */
function wrongShape(label: string, what: string): ServerError {
  return new ServerError(`${label}: REST v2 answered ${what}`, { status: 200, request: { method: 'POST', url: IN_PROCESS_URL, operation: label } });
}

/**
 * The resolver of one field, made once: its map entry (or its own resolver when the map does not
 * list it) decides where the value comes from, and the value is checked against the field's type.
 */
function resolverFor(type: string, field: GraphQLField<unknown, unknown>, table: ResolverTable): PlannedField {
  const label = `${type}.${field.name}`;
  const entry = FIELD_MAP[type]?.fields[field.name];
  const own: Resolver | undefined = table[type]?.[field.name];
  const nonNull = isNonNullType(field.type);
  const check = fits(field.type);
  const reads = readsOf(entry);
  const secretBearing = (entry?.scope ?? FIELD_MAP[type]?.scope) === 'write';

  const checked = (value: unknown, ctx?: ResolverContext): unknown => {
    if (value === undefined || value === null) {
      if (nonNull) throw wrongShape(label, `no value for ${reads}`);
      return null;
    }
    if (!check(value)) throw wrongShape(label, `${reads} with a value of another type than ${String(field.type)}`);
    // A field that can hold a secret's value (scope `write` in the map: Pod.env) never passes on
    // the key, a registered secret or this document's own secret inputs; the other fields hold no
    // secret, and skip the cost.
    if (!secretBearing) return value;
    const scope = scopeOf(ctx?.options);
    const scrub = scope ? (text: string) => scope.scrub(text) : redactText;
    if (typeof value === 'string') return scrub(value);
    if (Array.isArray(value)) return value.map((v: unknown) => (typeof v === 'string' ? scrub(v) : v));
    return value;
  };
  const derivedFault = (err: unknown): never => {
    if (err instanceof WrongRestShape) throw wrongShape(label, `${err.restPath} with a value that is not ${err.expected}`);
    throw err;
  };

  const noSource: PlannedField = {
    resolve: () => {
      throw noSourceError([label]);
    },
  };
  /** A field read from its parent alone: its resolver is the read (what compiled plans call directly). */
  const reading = (read: SyncRead): PlannedField => ({ read, resolve: (parent, _args, ctx) => read(parent, ctx) });
  const source = entry?.source;
  if (!source) return own ? { resolve: (parent, args, ctx, info) => own(args, ctx, info, parent) } : noSource;
  switch (source.kind) {
    case 'path': {
      const steps = source.path.split('.');
      if (steps.length === 1) {
        const key = steps[0]!;
        return reading((parent, ctx) => checked(isRecord(parent) && Object.hasOwn(parent, key) ? parent[key] : undefined, ctx));
      }
      return reading((parent, ctx) => {
        let at: unknown = parent;
        // readPath's walk (field-map/types.ts), with the steps split once, here, not per read.
        for (const step of steps) at = at !== null && typeof at === 'object' && Object.hasOwn(at, step) ? (at as Record<string, unknown>)[step] : undefined;
        return checked(at, ctx);
      });
    }
    case 'derived': {
      const derive = DERIVATIONS[source.derive];
      if (!derive) throw new Error(`${label}: the field map names a derivation ${source.derive} that no module exports`);
      return reading((parent, ctx) => {
        if (!isRecord(parent)) throw wrongShape(label, 'its parent as something other than an object');
        try {
          return checked(derive(parent), ctx);
        } catch (err) {
          return derivedFault(err);
        }
      });
    }
    case 'call': {
      if (!own) return noSource;
      // A call answers REST objects; what they hold is checked field by field as the map is followed.
      return { resolve: async (parent, args, ctx, info) => checked(await own(args, ctx, info, parent), ctx) };
    }
    case 'read': {
      const restPath = readRoutePath(source.route);
      const route = `GET ${restPath}`;
      return {
        resolve: async (_parent, _args, ctx) => {
          const answer = await ctx.get(restPath, route);
          return checked(readPath(answer, source.path), ctx);
        },
      };
    }
    case 'none': {
      const standIn = source.standIn;
      if (standIn) return reading(() => standIn.value);
      // No caller decides from it: an honest null, named once in the answer's warnings.
      if (source.effect === 'informational') {
        const why = source.why;
        return reading((_parent, ctx) => {
          ctx.warnings.add(label, why);
          return null;
        });
      }
      // Always an error: no plan holds it, graphql-js gives it.
      return noSource;
    }
  }
}

/**
 * Every field's resolver, from the map and `table`, made once per executor and looked up by type
 * and field. Never set on the schema's fields: the built schema is one per process, shared with the
 * emulator and the gateway, and each executor's resolvers hold its own client (another client's
 * key must never answer this one's document).
 */
function resolveByMap(schema: GraphQLSchema, table: ResolverTable) {
  const byType = new Map<GraphQLObjectType, Map<string, PlannedField>>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!(type instanceof GraphQLObjectType) || type.name.startsWith('__')) continue;
    const fields = new Map<string, PlannedField>();
    for (const field of Object.values(type.getFields())) fields.set(field.name, resolverFor(type.name, field, table));
    byType.set(type, fields);
  }
  const field = (type: GraphQLObjectType, name: string): PlannedField => byType.get(type)!.get(name)!;
  const fieldResolver: GraphQLFieldResolver<unknown, unknown> = (source, args, context, info) => field(info.parentType, info.fieldName).resolve(source, args, context as ResolverContext, info);
  return { field, fieldResolver };
}

/** Two resolver tables as one, type by type (`b` wins a field both have). */
function mergeTables(a: ResolverTable, b: ResolverTable): ResolverTable {
  const out: Record<string, Record<string, Resolver>> = {};
  for (const table of [a, b]) for (const [type, fields] of Object.entries(table)) out[type] = { ...out[type], ...fields };
  return out;
}

/** Ids read one by one, up to this many at once; past it, the one list read answers them all. */
export const BY_ID_UP_TO = 1;

/**
 * After every promise job queued now has run: reads asked for in one pass of graphql-js (the items
 * of a list, aliased fields, and what their answers lead to) are gathered before any is sent, as
 * DataLoader does. Node's nextTick where there is one; elsewhere a task.
 */
const afterJobs = (run: () => void): void => {
  const tick = (globalThis as { process?: { nextTick?: (fn: () => void) => void } }).process?.nextTick;
  void Promise.resolve().then(() => (tick ? tick(run) : setTimeout(run, 0)));
};

/** A document's context: its call options and its shared reads. */
function documentContext(deps: InProcessDeps, callOptions: CallOptions): ResolverContext {
  const reads = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    let hit = reads.get(key) as Promise<T> | undefined;
    if (!hit) {
      hit = read();
      reads.set(key, hit);
    }
    return hit;
  };
  // Reads other surfaces make for this document (the catalog a deploy reads): a failed one is
  // forgotten, so the next mutation of the document may read it again.
  const shared: SharedReads = <T>(key: string, read: () => Promise<T>) => {
    let hit = reads.get(key) as Promise<T> | undefined;
    if (!hit) {
      // Started in a promise job: a read that throws at once is a rejection like any other.
      const started = (hit = Promise.resolve().then(read));
      reads.set(key, started);
      started.catch(() => reads.get(key) === started && reads.delete(key));
    }
    return hit;
  };
  /** Ids asked for by list key and not yet sent, each with what settles its read. */
  const pending = new Map<string, Map<string, [(value: unknown) => void, (err: unknown) => void]>>();

  function byId<T extends { id: string }>(listKey: string, id: string, readOne: (id: string) => Promise<T | null>, readAll: () => Promise<T[]>): Promise<T | null> {
    return once(`${listKey}/${id}`, () =>
      new Promise((resolve, reject) => {
        let ids = pending.get(listKey);
        if (!ids) {
          const asked = (ids = new Map());
          pending.set(listKey, asked);
          afterJobs(() => {
            pending.delete(listKey);
            const one = (key: string) => readOne(key).then(...asked.get(key)!);
            // A few ids (and no list read already) are read by id; more are one list read, and an
            // id the list does not hold (a public template) is still read by id.
            if (asked.size <= BY_ID_UP_TO && !reads.has(listKey)) return asked.forEach((_, key) => one(key));
            once(listKey, readAll).then(
              (list) => asked.forEach(([found], key) => {
                const item = list.find((x) => x.id === key);
                if (item) found(item);
                else void one(key);
              }),
              (err: unknown) => asked.forEach(([, failed]) => failed(err)),
            );
          });
        }
        ids.set(id, [resolve as (value: unknown) => void, reject]);
      }),
    );
  }

  // Every call of the document carries its memo (shared-reads.ts), through whatever surface it goes.
  const options = Object.assign({ ...callOptions }, { [SHARED_READS]: shared }) as CallOptions;
  const context: ResolverContext = {
    warnings: new NoSourceWarnings(),
    options,
    rest: deps.rest,
    pods: deps.pods,
    once,
    byId,
    // A parameterless GET of the field map's `read` rows, once per document.
    get: (path, route) => once(route, () => deps.requester.object<unknown>({ method: 'GET', path, route, idempotent: true }, options, 'object')),
  };
  return context;
}

/**
 * `plans: false` runs every document through graphql-js's `execute` (the differential test
 * compares the two ways).
 */
export function createInProcessExecutor(deps: InProcessDeps, { plans = true }: { readonly plans?: boolean } = {}): InProcessExecutor {
  const schema = buildExecutableSchema();
  // The account's resolvers win a field both answer (Query.myself, User.pods): the account is theirs.
  const resolvers = mergeTables(createPodResolvers(deps.requester, deps.rest.catalog), accountResolvers);
  const { field, fieldResolver } = resolveByMap(schema, resolvers);
  const planFor = createPlanner(schema, field, fieldResolver);
  const prepare = createDocumentPreparer(schema);
  const passes = new WeakMap<DocumentNode, Map<string | undefined, Unanswerable>>();

  return {
    prepare,
    operation: (document, operationName) => getOperationAST(document, operationName),
    unanswerable(document, operationName) {
      let byName = passes.get(document);
      if (!byName) passes.set(document, (byName = new Map()));
      let found = byName.get(operationName);
      if (!found) byName.set(operationName, (found = unanswerable(schema, document, operationName, resolvers)));
      return found;
    },
    async run({ document, variables, operationName, options = {} }) {
      const { idempotent: _idempotent, ...callOptions } = options as CallOptions & { idempotent?: unknown };
      let context = documentContext(deps, callOptions);
      const run = (resolver: GraphQLFieldResolver<unknown, unknown>) => execute({ schema, document, rootValue: {}, contextValue: context, variableValues: variables, operationName, fieldResolver: resolver });
      const plan = plans ? planFor(document, operationName, variables) : undefined;
      let answer: ExecutionResult;
      if (!plan) answer = await run(fieldResolver);
      else {
        const outcome = await plan(context);
        if ('data' in outcome) answer = { data: outcome.data };
        else {
          // An error on the way: graphql-js runs the document with the same reads, its warnings afresh.
          context = { ...context, warnings: new NoSourceWarnings() };
          answer = await run(outcome.replay);
        }
      }
      const result = withWarnings(answer, context.warnings);
      if (!result.errors) return result;
      // A RunpodError keeps its class and is named in `extensions.code`; its message is already scrubbed.
      const errors = result.errors.map((e) => {
        const original = e.originalError;
        if (!(original instanceof RunpodError)) return e;
        const fields = (original as { fields?: readonly string[] }).fields;
        return new GraphQLError(original.message, {
          path: e.path,
          originalError: original,
          extensions: { code: original.name, ...(fields && { fields: [...fields] }) },
        });
      });
      return { ...result, errors };
    },
  };
}

export { isDocument };
