// The static pass: before anything is sent, every field of a document that has no REST v2 source
// and whose null would mislead (the field map says `decisive`, or lists nothing and no resolver
// answers it), fragments followed. Informational fields are not listed: they answer null with a warning.
import {
  getNamedType,
  getOperationAST,
  isNonNullType,
  isObjectType,
  isInterfaceType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { FIELD_MAP } from '../../field-map/index.js';
import type { ResolverTable } from './resolver-types.js';

/** The fields of one operation that have no source, as `Type.field`. */
export interface Unanswerable {
  /** Every such field, once each, in document order. */
  readonly fields: readonly string[];
  /** Those whose type is non-null: answering null would null their parent, so the operation is refused. */
  readonly nonNull: readonly string[];
}

const NOTHING: Unanswerable = { fields: [], nonNull: [] };

/**
 * True when `Type.field` is answered without an error: a REST v2 source in the map, a stand-in, an
 * informational field (null with a warning), or a resolver of its own.
 */
export function hasSource(type: string, field: string, resolvers: ResolverTable): boolean {
  const entry = FIELD_MAP[type]?.fields[field];
  if (!entry) return !!resolvers[type]?.[field];
  const { source } = entry;
  if (source.kind === 'none') return !!source.standIn || source.effect === 'informational';
  if (source.kind === 'call') return !!resolvers[type]?.[field];
  // A read needs no resolver of its own: its row names the route.
  return true;
}

/** The fields of the operation `operationName` picks that have no source (none when no operation is picked). */
export function unanswerable(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined, resolvers: ResolverTable): Unanswerable {
  const operation = getOperationAST(document, operationName);
  if (!operation) return NOTHING;
  const root = schema.getRootType(operation.operation);
  if (!root) return NOTHING;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const fields = new Set<string>();
  const nonNull = new Set<string>();
  // A fragment is walked once per type it is spread on (a validated document has no cycles).
  const walked = new Set<string>();

  const walk = (type: GraphQLNamedType, set: SelectionSetNode): void => {
    if (!isObjectType(type) && !isInterfaceType(type)) return;
    const defs = type.getFields();
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        const def = defs[name];
        if (!def || name.startsWith('__')) continue;
        if (!hasSource(type.name, name, resolvers)) {
          const label = `${type.name}.${name}`;
          fields.add(label);
          if (isNonNullType(def.type)) nonNull.add(label);
          continue;
        }
        if (selection.selectionSet) walk(getNamedType(def.type), selection.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
        if (on) walk(on, selection.selectionSet);
      } else {
        const fragment = fragments.get(selection.name.value);
        const on = fragment && schema.getType(fragment.typeCondition.name.value);
        const key = `${selection.name.value} ${type.name}`;
        if (!fragment || !on || walked.has(key)) continue;
        walked.add(key);
        walk(on, fragment.selectionSet);
      }
    }
  };
  walk(root, operation.selectionSet);
  return fields.size === 0 ? NOTHING : { fields: [...fields], nonNull: [...nonNull] };
}
