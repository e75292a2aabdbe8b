// What a request's document needs that depends only on its text, its operation name and the
// caller's scope: the operation it runs and the fields beyond the scope. Kept per parsed document
// (the document stage's cache bounds how many there are, and an evicted document takes its plans
// with it), per operation name the document really has (a name it lacks is never kept, so a caller
// cannot grow the map with made-up names), and per scope (a `read` token never sees the plan of a
// `write` one). A repeated document then runs no AST walk before its variables.
import { getOperationAST, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { FieldScope } from '../field-map/index.js';
import { fieldsBeyondScope } from './field-scopes.js';

interface OperationPlan {
  readonly operation: OperationDefinitionNode;
  /** The fields beyond each scope, once asked (frozen: every request of that scope reads the one array). */
  readonly beyond: Partial<Record<FieldScope, readonly string[]>>;
}

/** The key of a request that names no operation: no string, so no name a caller sends meets it. */
const UNNAMED = Symbol('no operation name');

/** Per document, per operation name: what it runs. */
const plans = new WeakMap<DocumentNode, Map<string | typeof UNNAMED, OperationPlan>>();

function planOf(document: DocumentNode, operationName: string | undefined | null): OperationPlan | undefined {
  let byName = plans.get(document);
  if (!byName) plans.set(document, (byName = new Map()));
  const key = operationName ?? UNNAMED;
  const kept = byName.get(key);
  if (kept) return kept;
  const operation = getOperationAST(document, operationName);
  if (!operation) return undefined;
  const plan: OperationPlan = { operation, beyond: {} };
  byName.set(key, plan);
  return plan;
}

/** The operation `operationName` picks (or the only one), or undefined; once per document and name. */
export function operationOf(document: DocumentNode, operationName: string | undefined | null): OperationDefinitionNode | undefined {
  return planOf(document, operationName)?.operation;
}

/**
 * The fields of `operation` a token of `scope` may not read (field-scopes.ts), once per document,
 * operation and scope. The array is frozen and shared: read it, never change it.
 */
export function beyondScope(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, scope: FieldScope): readonly string[] {
  const plan = planOf(document, operation.name?.value);
  // An operation not of this document (never so from the pipeline): computed, not kept.
  if (!plan || plan.operation !== operation) return fieldsBeyondScope(schema, document, operation, scope);
  return (plan.beyond[scope] ??= Object.freeze(fieldsBeyondScope(schema, document, operation, scope)));
}

/** How many operation names are kept for `document` (for tests of the bound). */
export function keptPlans(document: DocumentNode): number {
  return plans.get(document)?.size ?? 0;
}
