// schema.graphql from its three inputs (DESIGN.md, "The schema is generated from evidence"):
//
//   the reference copy (src/contracts/graphql-reference.graphql)
//   − the removals production's refusal proves (src/contracts/graphql-corrections.json)
//   + the additions read from newer production-derived sources (src/contracts/graphql-additions.graphql),
//     each coordinate with its source in src/contracts/graphql-provenance.json.
//
// `schemaDelta` lists what the result adds to, changes in and removes from the reference, coordinate
// by coordinate; the provenance test holds that list and the provenance file equal.
import {
  buildSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isSpecifiedScalarType,
  Kind,
  parse,
  print,
  visit,
  type DefinitionNode,
  type DocumentNode,
  type EnumValueDefinitionNode,
  type FieldDefinitionNode,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
  type InputValueDefinitionNode,
} from 'graphql';

/** The removals: `Type.field` → why production refuses it (the evidence). */
export interface SchemaCorrections {
  readonly remove?: Readonly<Record<string, string>>;
}

type Member = FieldDefinitionNode | InputValueDefinitionNode | EnumValueDefinitionNode;
type Extensible = DefinitionNode & { readonly name: { readonly value: string }; readonly fields?: readonly Member[]; readonly values?: readonly Member[] };

const EXTENSION_OF: Partial<Record<string, string>> = {
  [Kind.OBJECT_TYPE_EXTENSION]: Kind.OBJECT_TYPE_DEFINITION,
  [Kind.INPUT_OBJECT_TYPE_EXTENSION]: Kind.INPUT_OBJECT_TYPE_DEFINITION,
  [Kind.ENUM_TYPE_EXTENSION]: Kind.ENUM_TYPE_DEFINITION,
};

const named = (d: DefinitionNode): string | undefined => ('name' in d && d.name ? d.name.value : undefined);

/** The reference less the corrections' removals; a removal the reference lacks is an error. */
function withoutRemovals(reference: DocumentNode, corrections: SchemaCorrections): DocumentNode {
  const remove = new Set(Object.keys(corrections.remove ?? {}));
  const found = new Set<string>();
  const corrected = visit(reference, {
    enter(node, _key, _parent, _path, ancestors) {
      if (node.kind !== Kind.FIELD_DEFINITION && node.kind !== Kind.INPUT_VALUE_DEFINITION) return undefined;
      const owner = ancestors[ancestors.length - 1] as { kind?: string; name?: { value: string } } | undefined;
      if (owner?.kind !== Kind.OBJECT_TYPE_DEFINITION && owner?.kind !== Kind.INPUT_OBJECT_TYPE_DEFINITION) return undefined;
      const name = `${owner.name!.value}.${node.name.value}`;
      if (!remove.has(name)) return undefined;
      found.add(name);
      return null;
    },
  });
  const missing = [...remove].filter((name) => !found.has(name));
  if (missing.length) throw new Error(`contracts: corrections name fields the reference lacks: ${missing.join(', ')}`);
  return corrected;
}

/**
 * The reference's definitions in their order, with the additions merged in: an extension's members
 * are appended to the type they extend, or replace the member of that name; a definition is
 * appended, or replaces the reference's definition of that name. Deterministic: the same inputs
 * give the same text.
 */
export function mergeSchema(referenceSdl: string, additionsSdl: string, corrections: SchemaCorrections): string {
  const definitions: DefinitionNode[] = [...withoutRemovals(parse(referenceSdl), corrections).definitions];
  const at = new Map<string, number>();
  definitions.forEach((d, i) => named(d) !== undefined && at.set(named(d)!, i));
  for (const addition of parse(additionsSdl).definitions) {
    const name = named(addition);
    if (name === undefined) throw new Error('contracts: graphql-additions.graphql holds a definition without a name');
    const base = EXTENSION_OF[addition.kind];
    if (base === undefined) {
      // A definition: new, or one that replaces the reference's (a changed kind).
      if (at.has(name)) definitions[at.get(name)!] = addition;
      else at.set(name, definitions.push(addition) - 1);
      continue;
    }
    const index = at.get(name);
    const target = index === undefined ? undefined : (definitions[index] as Extensible);
    if (target?.kind !== base) throw new Error(`contracts: graphql-additions.graphql extends ${name}, which the reference has not as that kind of type`);
    const key = base === Kind.ENUM_TYPE_DEFINITION ? 'values' : 'fields';
    const members = [...(target[key] ?? [])];
    for (const member of (addition as Extensible)[key] ?? []) {
      const same = members.findIndex((m) => m.name.value === member.name.value);
      if (same >= 0) members[same] = member;
      else members.push(member);
    }
    definitions[index!] = { ...target, [key]: members } as DefinitionNode;
  }
  const text = `${print({ kind: Kind.DOCUMENT, definitions })}\n`;
  buildSchema(text);
  return text;
}

/** How a coordinate of the merged schema differs from the reference. */
export type DeltaKind = 'added' | 'changed' | 'removed';

const typeKind = (t: GraphQLNamedType): string => (isObjectType(t) ? 'object' : isInputObjectType(t) ? 'input' : isEnumType(t) ? 'enum' : isInterfaceType(t) ? 'interface' : 'other');

const inputSignature = (v: GraphQLArgument | GraphQLInputField) => `${String(v.type)}${v.defaultValue === undefined ? '' : ` = ${JSON.stringify(v.defaultValue)}`}`;

/** Every coordinate of a named type: `T.field`, `T.field(arg:)`, `T.inputField`, `T.VALUE`, each with its signature. */
function members(t: GraphQLNamedType): Map<string, string> {
  const out = new Map<string, string>();
  if (isObjectType(t) || isInterfaceType(t)) {
    for (const f of Object.values(t.getFields()) as GraphQLField<unknown, unknown>[]) {
      out.set(`${t.name}.${f.name}`, String(f.type));
      for (const a of f.args) out.set(`${t.name}.${f.name}(${a.name}:)`, inputSignature(a));
    }
  } else if (isInputObjectType(t)) {
    for (const f of Object.values(t.getFields())) out.set(`${t.name}.${f.name}`, inputSignature(f));
  } else if (isEnumType(t)) {
    for (const v of t.getValues()) out.set(`${t.name}.${v.name}`, 'value');
  }
  return out;
}

/**
 * What `mergedSdl` adds to, changes in and removes from `referenceSdl`, by schema coordinate, sorted.
 * A new type is one coordinate (`T`, added) and covers its members; a type whose kind changed is
 * `T` (changed) and covers them too.
 */
export function schemaDelta(referenceSdl: string, mergedSdl: string): ReadonlyMap<string, DeltaKind> {
  const reference = buildSchema(referenceSdl);
  const merged = buildSchema(mergedSdl);
  const out = new Map<string, DeltaKind>();
  const userTypes = (s: typeof merged) => Object.values(s.getTypeMap()).filter((t) => !t.name.startsWith('__') && !isSpecifiedScalarType(t));
  for (const t of userTypes(merged)) {
    const before = reference.getType(t.name);
    if (!before) {
      out.set(t.name, 'added');
      continue;
    }
    if (typeKind(before) !== typeKind(t)) {
      out.set(t.name, 'changed');
      continue;
    }
    const was = members(before);
    const newFields = new Set<string>();
    for (const [coordinate, signature] of members(t)) {
      const field = coordinate.replace(/\(.*$/, '');
      // A new field covers its arguments.
      if (field !== coordinate && newFields.has(field)) continue;
      if (!was.has(coordinate)) {
        out.set(coordinate, 'added');
        newFields.add(coordinate);
      } else if (was.get(coordinate) !== signature) out.set(coordinate, 'changed');
    }
    for (const coordinate of was.keys()) if (!members(t).has(coordinate)) out.set(coordinate, 'removed');
  }
  for (const t of userTypes(reference)) if (!merged.getType(t.name)) out.set(t.name, 'removed');
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
