// Field-level scopes: which gateway token may read which field, from the field map (one source:
// `Pod.env` can hold a secret's value, so only `write` reads it; the GPU catalog is `catalog`, what
// a public price page needs). A document that selects a field beyond its token's scope is refused
// whole, naming every such field, before anything runs.
import {
  Kind,
  TypeInfo,
  getNamedType,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { fieldScope, type FieldScope } from '../field-map/index.js';

/** A description that says its field holds a key, a token, a password, a secret or env values. */
export const SECRET_BEARING_DESCRIPTION = /\b(api[ _-]?key|key|token|password|secret|env(ironment)?)s?\b/i;

/** Scopes from narrowest to widest: a token reads every field at or below its own. */
export const SCOPE_RANK: Readonly<Record<FieldScope, number>> = { catalog: 0, read: 1, write: 2 };

/** Each `Type.field` the operation selects (fragments followed) with the scope it needs; computed once per document. */
const needsByDocument = new WeakMap<DocumentNode, Map<string, ReadonlyArray<readonly [string, FieldScope]>>>();

function operationNeeds(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): ReadonlyArray<readonly [string, FieldScope]> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const reached = new Set<string>();
  const needs = new Map<string, FieldScope>();
  // Each operation or fragment is walked with its own TypeInfo: a fragment is typed by its condition.
  const walk = (node: OperationDefinitionNode | FragmentDefinitionNode): void => {
    const typeInfo = new TypeInfo(schema);
    visit(
      node,
      visitWithTypeInfo(typeInfo, {
        Field(field) {
          const parent = typeInfo.getParentType();
          const name = field.name.value;
          // Introspection and __typename say nothing of the account: `catalog` reads them.
          // A field the schema does not define fails validation; it needs no scope.
          if (!parent || name.startsWith('__') || !typeInfo.getFieldDef()) return;
          const type = getNamedType(parent).name;
          const key = `${type}.${name}`;
          // A field whose description says it holds a secret is `write`, as one whose name does.
          const described = SECRET_BEARING_DESCRIPTION.test(typeInfo.getFieldDef()?.description ?? '');
          if (!needs.has(key)) needs.set(key, described ? 'write' : fieldScope(type, name));
        },
        FragmentSpread(spread) {
          const fragment = fragments.get(spread.name.value);
          if (!fragment || reached.has(fragment.name.value)) return;
          reached.add(fragment.name.value);
          walk(fragment);
        },
      }),
    );
  };
  walk(operation);
  return [...needs];
}

/**
 * The fields of `operation` (in a document valid against `schema`) that a token of `scope` may not
 * read, as `Type.field`, in document order; empty when it may read them all.
 */
export function fieldsBeyondScope(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, scope: FieldScope): string[] {
  let byOperation = needsByDocument.get(document);
  if (!byOperation) needsByDocument.set(document, (byOperation = new Map()));
  const key = operation.name?.value ?? '';
  let needs = byOperation.get(key);
  if (!needs) byOperation.set(key, (needs = operationNeeds(schema, document, operation)));
  const rank = SCOPE_RANK[scope];
  return needs.filter(([, needed]) => SCOPE_RANK[needed] > rank).map(([field]) => field);
}

/**
 * True when `operation` is a query that reads catalog fields only (fragments followed): what RunPod
 * answers without a key, and what the gateway answers keyless callers and caches for everyone. The
 * one mapping is the field map's `catalog` scope (src/graphql/README.md, "Public queries").
 */
export function readsOnlyCatalog(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): boolean {
  return operation.operation === 'query' && fieldsBeyondScope(schema, document, operation, 'catalog').length === 0;
}
