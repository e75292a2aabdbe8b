// Compiled plans: a query whose fields below the root all read their parent's REST v2 object
// (the field map's `path`, `derived` and no-source rows) is collected once per document, operation
// and @skip/@include values, and then completed by closures instead of graphql-js's `execute`
// (which collects fields, builds a path and an info object, and checks for a promise per field).
// The root fields' resolvers are called as `execute` calls them, with the same arguments.
//
// A plan answers only when nothing went wrong. At the first error of any kind (a wrong REST shape,
// a null for a non-null field, a resolver's rejection), the document is run by `execute` instead,
// with each root resolver's outcome replayed rather than called again: nothing is sent twice, and
// every error, error path, null and warning is graphql-js's own. So a plan needs to match
// `execute` on answers without errors only (test/fuzz/compiled-plans.test.ts compares them).
import {
  getArgumentValues,
  getDirectiveValues,
  getOperationAST,
  getVariableValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isAbstractType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLFieldResolver,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import type { ResolverContext } from './resolver-types.js';

/** A field's value read from its parent's REST object, synchronously (it throws where its resolver would). */
export type SyncRead = (parent: unknown, ctx: ResolverContext) => unknown;

/** One field's resolver, and its synchronous read when it has one (the map's path, derived and no-source rows). */
export interface PlannedField {
  readonly resolve: GraphQLFieldResolver<unknown, ResolverContext>;
  readonly read?: SyncRead | undefined;
}

/** What a plan gives: the answer's data, or the resolver that replays the root fields for `execute`. */
export type PlanOutcome = { readonly data: Record<string, unknown> } | { readonly replay: GraphQLFieldResolver<unknown, unknown> };

type Vars = Record<string, unknown>;
type Complete = (value: unknown, ctx: ResolverContext) => unknown;
type Plan = (ctx: ResolverContext, vars: Vars) => PlanOutcome | Promise<PlanOutcome>;

interface Prepared {
  readonly operation: OperationDefinitionNode;
  readonly fragments: Record<string, FragmentDefinitionNode>;
  /** The operation's Boolean variables, which @skip and @include read: a plan is compiled per set of their values. */
  readonly conditions: readonly string[];
  readonly plans: Map<string, Plan | null>;
}

/** Compiled plans kept per document and operation for this many sets of @skip/@include values at most. */
const MAX_CONDITION_SETS = 16;

const isPromise = (value: unknown): value is Promise<unknown> => typeof (value as { then?: unknown } | null)?.then === 'function';

/** What a plan throws where graphql-js would give an error: the plan gives up, and `execute` gives it. */
const fail = (): never => {
  throw fail;
};

/** True when a literal holds a variable anywhere. */
const readsVariable = (value: ValueNode): boolean =>
  value.kind === Kind.VARIABLE || (value.kind === Kind.LIST ? value.values.some(readsVariable) : value.kind === Kind.OBJECT && value.fields.some((f) => readsVariable(f.value)));

/**
 * Plans over `schema`: `planFor` answers a function that runs the document, or undefined when it
 * has no plan (graphql-js runs it). `fields` gives each field's resolver; `fieldResolver` is the
 * executor's own, called for what a replay does not hold.
 */
export function createPlanner(schema: GraphQLSchema, fields: (type: GraphQLObjectType, field: string) => PlannedField, fieldResolver: GraphQLFieldResolver<unknown, unknown>) {
  const prepared = new WeakMap<DocumentNode, Map<string | undefined, Prepared | null>>();
  const queryType = schema.getQueryType();

  function prepare(document: DocumentNode, operationName: string | undefined): Prepared | null {
    const operation = getOperationAST(document, operationName);
    // Mutations run one field after another with effects of their own: graphql-js runs them.
    if (!operation || operation.operation !== 'query' || !queryType) return null;
    const fragments: Record<string, FragmentDefinitionNode> = {};
    for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments[def.name.value] = def;
    // @skip and @include read Boolean variables only (validation sees to it): a plan is kept per set of their values.
    const conditions: string[] = [];
    for (const d of operation.variableDefinitions ?? []) {
      const t = d.type.kind === Kind.NON_NULL_TYPE ? d.type.type : d.type;
      if (t.kind === Kind.NAMED_TYPE && t.name.value === 'Boolean') conditions.push(d.variable.name.value);
    }
    return { operation, fragments, conditions, plans: new Map() };
  }

  /** graphql-js's collectFields: the fields of `sets` on `type`, by response key, fragments followed. */
  function collect(type: GraphQLObjectType, sets: readonly SelectionSetNode[], p: Prepared, vars: Vars): Map<string, FieldNode[]> {
    const out = new Map<string, FieldNode[]>();
    const visited = new Set<string>();
    const included = (node: FieldNode | SelectionSetNode['selections'][number]) =>
      !node.directives?.length || (getDirectiveValues(GraphQLSkipDirective, node, vars)?.if !== true && getDirectiveValues(GraphQLIncludeDirective, node, vars)?.if !== false);
    const matches = (name: string | undefined) => {
      if (name === undefined || name === type.name) return true;
      const on = schema.getType(name);
      return !!on && isAbstractType(on) && schema.isSubType(on, type);
    };
    const walk = (set: SelectionSetNode): void => {
      for (const s of set.selections) {
        if (!included(s)) continue;
        if (s.kind === Kind.FIELD) {
          const key = s.alias?.value ?? s.name.value;
          const list = out.get(key);
          if (list) list.push(s);
          else out.set(key, [s]);
        } else if (s.kind === Kind.INLINE_FRAGMENT) {
          if (matches(s.typeCondition?.name.value)) walk(s.selectionSet);
        } else {
          const name = s.name.value;
          if (visited.has(name)) continue;
          visited.add(name);
          const fragment = p.fragments[name];
          if (fragment && matches(fragment.typeCondition.name.value)) walk(fragment.selectionSet);
        }
      }
    };
    sets.forEach(walk);
    return out;
  }

  /** The completion of a value of `type` selected by `nodes`, or undefined when it is not planned. */
  function complete(type: GraphQLOutputType, nodes: readonly FieldNode[], p: Prepared, vars: Vars): Complete | undefined {
    if (isNonNullType(type)) {
      const inner = complete(type.ofType, nodes, p, vars);
      return inner && ((v, ctx) => (v == null ? fail() : inner(v, ctx)));
    }
    if (isListType(type)) {
      const item = complete(type.ofType as GraphQLOutputType, nodes, p, vars);
      return item && ((v, ctx) => (v == null ? null : Array.isArray(v) ? v.map((x) => item(x, ctx)) : fail()));
    }
    if (isLeafType(type)) return (v) => (v == null ? null : (type.serialize(v) ?? fail()));
    if (!isObjectType(type)) return undefined;
    const sets = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
    const planned: Array<[string, SyncRead, Complete]> = [];
    for (const [key, [node, ...rest]] of collect(type, sets, p, vars)) {
      const name = node!.name.value;
      if (name === '__typename') {
        planned.push([key, () => type.name, (v) => v]);
        continue;
      }
      const def = type.getFields()[name];
      const read = def && fields(type, name).read;
      // A field with arguments that read variables could fail to coerce them: graphql-js decides.
      if (!def || !read || node!.arguments?.some((a) => readsVariable(a.value))) return undefined;
      const sub = complete(def.type, [node!, ...rest], p, vars);
      if (!sub) return undefined;
      planned.push([key, read, sub]);
    }
    const n = planned.length;
    return (v, ctx) => {
      if (v == null) return null;
      const out: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) {
        const f = planned[i]!;
        out[f[0]] = f[2](f[1](v, ctx), ctx);
      }
      return out;
    };
  }

  function compile(p: Prepared, vars: Vars): Plan | null {
    const root = queryType!;
    const rootValue = {};
    const roots: Array<{ key: string; nodes: FieldNode[]; resolve: GraphQLFieldResolver<unknown, ResolverContext> | undefined; def: ReturnType<typeof root.getFields>[string] | undefined; pure: boolean; sub: Complete }> = [];
    for (const [key, nodes] of collect(root, [p.operation.selectionSet], p, vars)) {
      const name = nodes[0]!.name.value;
      if (name === '__typename') {
        roots.push({ key, nodes, resolve: undefined, def: undefined, pure: true, sub: () => root.name });
        continue;
      }
      const def = root.getFields()[name];
      if (!def || name.startsWith('__')) return null;
      const sub = complete(def.type, nodes, p, vars);
      if (!sub) return null;
      const field = fields(root, name);
      roots.push({ key, nodes, resolve: field.resolve, def, pure: !!field.read, sub });
    }
    const index = new Map(roots.map((r, i) => [r.key, i]));
    return (ctx, coerced) => {
      // Each root resolver's outcome, for the replay (a read of the map is not kept: it is called again).
      const outcomes: Array<{ value: unknown } | { thrown: unknown } | undefined> = [];
      const fallback = (): PlanOutcome => ({
        replay: (source, args, context, info) => {
          const at = info.path.prev === undefined ? index.get(String(info.path.key)) : undefined;
          const hit = at === undefined ? undefined : outcomes[at];
          if (!hit) return fieldResolver(source, args, context, info);
          if ('thrown' in hit) throw hit.thrown;
          return hit.value;
        },
      });
      const answer = (settled: readonly unknown[]): PlanOutcome => {
        const data: Record<string, unknown> = {};
        for (let i = 0; i < roots.length; i++) data[roots[i]!.key] = settled[i];
        return { data };
      };
      const values: unknown[] = [];
      let pending: Promise<unknown> | undefined;
      let many = false;
      try {
        for (let i = 0; i < roots.length; i++) {
          const { key, nodes, resolve, def, pure, sub } = roots[i]!;
          if (!resolve || !def) {
            values.push(sub(undefined, ctx));
            continue;
          }
          const args = getArgumentValues(def, nodes[0]!, coerced);
          const info: GraphQLResolveInfo = {
            fieldName: def.name,
            fieldNodes: nodes,
            returnType: def.type,
            parentType: root,
            path: { prev: undefined, key, typename: root.name },
            schema,
            fragments: p.fragments,
            rootValue,
            operation: p.operation,
            variableValues: coerced,
          };
          let value: unknown;
          try {
            value = resolve(rootValue, args, ctx, info);
          } catch (thrown) {
            if (!pure) outcomes[i] = { thrown };
            throw thrown;
          }
          if (!pure) outcomes[i] = { value };
          if (isPromise(value)) {
            // Completed as its promise settles, as graphql-js completes it (warnings keep its order).
            many = pending !== undefined;
            values.push((pending = value.then((v) => sub(v, ctx))));
          } else values.push(sub(value, ctx));
        }
      } catch {
        for (const v of values) if (isPromise(v)) v.catch(() => undefined);
        return fallback();
      }
      if (!pending) return answer(values);
      if (!many) {
        const at = values.indexOf(pending);
        return pending.then((v) => ((values[at] = v), answer(values)), fallback);
      }
      return Promise.all(values).then(answer, fallback);
    };
  }

  /**
   * The run of `document`'s plan with these variables, or undefined when graphql-js runs it (no
   * plan, or variables that do not coerce: `execute` gives their errors).
   */
  return function planFor(document: DocumentNode, operationName: string | undefined, variables: Vars | undefined): ((ctx: ResolverContext) => PlanOutcome | Promise<PlanOutcome>) | undefined {
    let byName = prepared.get(document);
    if (!byName) prepared.set(document, (byName = new Map()));
    let p = byName.get(operationName);
    if (p === undefined) byName.set(operationName, (p = prepare(document, operationName)));
    if (!p) return undefined;
    const { coerced, errors } = getVariableValues(schema, p.operation.variableDefinitions ?? [], variables ?? {}, { maxErrors: 50 });
    if (errors || !coerced) return undefined;
    const key = p.conditions.map((n) => (Object.hasOwn(coerced, n) ? String(coerced[n]) : '-')).join();
    let plan = p.plans.get(key);
    if (plan === undefined) {
      if (p.plans.size >= MAX_CONDITION_SETS) return undefined;
      try {
        plan = compile(p, coerced);
      } catch {
        // A condition graphql-js refuses (a null for `if`): its error is execute's to give.
        plan = null;
      }
      p.plans.set(key, plan);
    }
    const run = plan;
    return run ? (ctx) => run(ctx, coerced) : undefined;
  };
}
