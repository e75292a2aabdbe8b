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
  GraphQLSchema,
  GraphQLString,
  isEnumType,
  isListType,
  isNonNullType,
  isScalarType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isSpecifiedScalarType,
  Kind,
  parse,
  print,
  printSchema,
  visit,
  type DefinitionNode,
  type DocumentNode,
  type EnumValueDefinitionNode,
  type FieldDefinitionNode,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
  type GraphQLType,
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

// ---- the executors' schema, as the package ships it -----------------------------------------------

/**
 * What the executors build at run time: the types a document can reach from Query and Mutation
 * (the rest are admin and host inputs no root field takes), printed. Validation and execution are
 * the same as over the whole file; only introspection lists fewer types.
 */
export function runtimeSchemaSdl(sdl: string): string {
  const whole = buildSchema(sdl);
  return printSchema(new GraphQLSchema({ query: whole.getQueryType(), mutation: whole.getMutationType(), types: [] }));
}

/** The named types a code can stand for before the schema's own: graphql-js's specified scalars. */
export const BUILT_IN_SCALARS = ['String', 'Int', 'Boolean', 'Float', 'ID'] as const;

/**
 * `sdl` (without descriptions, directives, interfaces, unions or default values, as the executors'
 * schema is: anything else is an error) in the compact form `decodeSchema` (src/graphql/
 * executable-schema.ts) builds into the same GraphQLSchema, with graphql-js's constructors and no
 * SDL parser. One line per named type, in the SDL's order (so the type map's order is the same):
 *
 *   o<Name> <field> <field> …    an object type   (i<Name> an input type)
 *   e<Name> <VALUE> <VALUE> …    an enum
 *   s<Name>                      a scalar
 *
 * A field is `name`, `name(arg,arg:ref)` with arguments, then `:ref` for its type; an argument or
 * field without `:ref` is a nullable String (half of them). A ref is a named type's code in base 36
 * (0-4 the built-in scalars in BUILT_IN_SCALARS' order, then each line's type in order), wrapped as
 * in SDL: `[` `]` for a list, `!` for non-null. About 0.8 KB smaller gzipped than the SDL text, and
 * the bundle leaves out graphql-js's SDL schema building (buildASTSchema, extendSchema).
 */
export function encodeSchema(sdl: string): string {
  const document = parse(sdl);
  const schema = buildSchema(sdl);
  const order: string[] = [];
  for (const definition of document.definitions) {
    const name = named(definition);
    if (definition.kind === Kind.SCHEMA_DEFINITION || name === undefined) throw new Error(`encodeSchema: only named types are encoded, not ${definition.kind}`);
    order.push(name);
  }
  const codes = new Map<string, string>([...BUILT_IN_SCALARS, ...order].map((name, i) => [name, i.toString(36)]));
  const ref = (type: GraphQLType): string => (isNonNullType(type) ? `${ref(type.ofType)}!` : isListType(type) ? `[${ref(type.ofType)}]` : codes.get(type.name)!);
  const typed = (name: string, type: GraphQLType) => (type === GraphQLString ? name : `${name}:${ref(type)}`);
  const unsupported = (what: string) => {
    throw new Error(`encodeSchema: ${what} is not encoded`);
  };
  return order
    .map((name) => {
      const type = schema.getType(name)!;
      if (type.description) unsupported(`${name}'s description`);
      if (isEnumType(type)) {
        for (const v of type.getValues()) if (v.description || v.deprecationReason || v.value !== v.name) unsupported(`${name}.${v.name}'s description, deprecation or value`);
        return `e${name} ${type.getValues().map((v) => v.name).join(' ')}`;
      }
      if (isScalarType(type)) {
        if (type.specifiedByURL) unsupported(`${name}'s @specifiedBy`);
        return `s${name}`;
      }
      if (isInputObjectType(type)) {
        const fields = Object.values(type.getFields()).map((f) => {
          if (f.description || f.deprecationReason || f.defaultValue !== undefined) unsupported(`${name}.${f.name}'s description, deprecation or default`);
          return typed(f.name, f.type);
        });
        if (type.isOneOf) unsupported(`${name}'s @oneOf`);
        return `i${name} ${fields.join(' ')}`;
      }
      if (!isObjectType(type) || type.getInterfaces().length > 0) return unsupported(`${name} (an interface, a union, or an object that implements one)`);
      const fields = Object.values(type.getFields()).map((f) => {
        if (f.description || f.deprecationReason) unsupported(`${name}.${f.name}'s description or deprecation`);
        const args = f.args.map((a) => {
          if (a.description || a.deprecationReason || a.defaultValue !== undefined) unsupported(`${name}.${f.name}(${a.name}:)'s description, deprecation or default`);
          return typed(a.name, a.type);
        });
        return typed(args.length ? `${f.name}(${args.join(',')})` : f.name, f.type);
      });
      return `o${name} ${fields.join(' ')}`;
    })
    .join('\n');
}
