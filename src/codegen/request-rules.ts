// Compiles the REST v2 contract's request-body schemas into the compact rules the client checks
// before sending (src/rest/request-check.ts), so the client bundle does not carry the contract.
// Only what a body can get wrong is kept: keys, required keys, types, enums, bounds, patterns.
// Which schemas are request bodies is read from the contract's operations, and every keyword a
// body schema uses must be compiled here or be a known annotation: anything else fails codegen,
// naming the keyword and where it is, so no rule of the contract is dropped silently.

type Schema = Record<string, unknown>;

export interface CompiledField {
  t?: string[];
  e?: unknown[];
  min?: number;
  max?: number;
  minLen?: number;
  maxLen?: number;
  minItems?: number;
  maxItems?: number;
  unique?: boolean;
  p?: string;
  o?: CompiledObject;
  i?: CompiledField;
  u?: CompiledObject[];
}

export interface CompiledObject {
  k: Record<string, CompiledField>;
  r?: string[];
  closed?: boolean;
  minProps?: number;
  v?: CompiledField;
  ru?: Record<string, string>;
  dr?: Record<string, string[]>;
  /** When key `k` is the constant `v`, the fields in `then` must also pass these rules. */
  c?: Array<{ k: string; v: unknown; then: Record<string, CompiledField> }>;
}

type Contract = { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, Schema> } };

/** The schemas the contract's operations take as JSON request bodies, in the contract's order. */
export function requestSchemaNames(contract: Contract): string[] {
  const names: string[] = [];
  for (const item of Object.values(contract.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (method === 'parameters') continue;
      const schema = (op as { requestBody?: { content?: Record<string, { schema?: Schema }> } }).requestBody?.content?.['application/json']?.schema;
      if (!schema) continue;
      if (typeof schema.$ref !== 'string') throw new Error('request-rules: an inline request body schema has no name; give it a component');
      const name = schema.$ref.replace('#/components/schemas/', '');
      if (!names.includes(name)) names.push(name);
    }
  }
  return names;
}

/** Keywords the compiler turns into rules. */
const COMPILED = new Set([
  '$ref', 'allOf', 'type', 'enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems', 'pattern',
  'items', 'oneOf', 'properties', 'required', 'additionalProperties', 'unevaluatedProperties', 'minProperties', 'dependentRequired', 'if', 'then',
]);
/** Keywords that assert nothing about a body (annotations; `discriminator` names the `oneOf` branch already checked). */
const ANNOTATIONS = new Set(['default', 'discriminator', 'format', 'deprecated', 'readOnly', 'writeOnly', 'title', 'description', 'example', 'examples', 'nullable']);

/** Throws naming the first keyword under `schema` that the compiler would drop. */
function checkKeywords(schema: unknown, where: string): void {
  if (Array.isArray(schema)) return schema.forEach((s, n) => checkKeywords(s, `${where}[${n}]`));
  if (typeof schema !== 'object' || schema === null) return;
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith('x-') || ANNOTATIONS.has(key)) continue;
    if (!COMPILED.has(key)) throw new Error(`request-rules: cannot compile the JSON Schema keyword "${key}" at ${where}; teach src/codegen/request-rules.ts and src/rest/request-problems.ts to enforce it`);
    if (key === 'properties') for (const [name, child] of Object.entries(value as Record<string, unknown>)) checkKeywords(child, `${where}.properties.${name}`);
    else if (key === 'dependentRequired' || key === 'required' || key === 'enum' || key === '$ref') continue;
    else if (key === 'if') checkIf(value as Schema, `${where}.if`);
    else checkKeywords(value, `${where}.${key}`);
  }
}

/** The two `if` forms compiled: `not: {required: [one]}`, and one property `const`. */
function checkIf(cond: Schema, where: string): void {
  const notRequired = (cond.not as Schema | undefined)?.required;
  const props = Object.entries((cond.properties as Record<string, Schema> | undefined) ?? {});
  const keys = Object.keys(cond).filter((k) => !k.startsWith('x-'));
  const isNotRequired = keys.length === 1 && keys[0] === 'not' && Array.isArray(notRequired) && notRequired.length === 1 && Object.keys(cond.not as Schema).length === 1;
  const isConst = props.length === 1 && 'const' in props[0]![1] && Object.keys(props[0]![1]).length === 1 && keys.every((k) => k === 'properties' || k === 'required');
  if (!isNotRequired && !isConst) throw new Error(`request-rules: cannot compile the "if" at ${where}: only not/required of one key and one property const are compiled`);
}

export function compileRequestRules(contract: Contract): Record<string, CompiledObject> {
  const schemas = contract.components.schemas;
  const resolve = (schema: Schema): Schema => {
    const ref = schema.$ref;
    if (typeof ref !== 'string') return schema;
    const target = schemas[ref.replace('#/components/schemas/', '')];
    if (!target) throw new Error(`unresolved ${ref}`);
    return resolve(target);
  };

  /** allOf parts, the schema itself and `$ref`s flattened into one list of plain schemas. */
  const parts = (schema: Schema): Schema[] => {
    const s = resolve(schema);
    const all = Array.isArray(s.allOf) ? (s.allOf as Schema[]).flatMap(parts) : [];
    return [...all, s];
  };

  const isObject = (list: Schema[]) => list.some((p) => p.type === 'object' || p.properties !== undefined);

  function compileObject(list: Schema[]): CompiledObject {
    const out: CompiledObject = { k: {} };
    const required = new Set<string>();
    for (const p of list) {
      for (const [name, child] of Object.entries((p.properties as Record<string, Schema> | undefined) ?? {})) {
        const compiled = compileField(child as Schema);
        const prior = out.k[name];
        out.k[name] = prior?.o && compiled.o ? { ...prior, o: mergeObjects(prior.o, compiled.o) } : { ...prior, ...compiled };
      }
      for (const name of (p.required as string[] | undefined) ?? []) required.add(name);
      if (p.unevaluatedProperties === false || p.additionalProperties === false) out.closed = true;
      if (typeof p.additionalProperties === 'object' && p.additionalProperties) out.v = compileField(p.additionalProperties as Schema);
      if (typeof p.minProperties === 'number') out.minProps = p.minProperties;
      const cond = p.if as Schema | undefined;
      const then = p.then as Schema | undefined;
      const notRequired = (cond?.not as Schema | undefined)?.required as string[] | undefined;
      if (notRequired?.length === 1 && Array.isArray(then?.required)) {
        for (const name of then.required as string[]) (out.ru ??= {})[name] = notRequired[0]!;
      }
      const when = Object.entries((cond?.properties as Record<string, Schema> | undefined) ?? {});
      if (when.length === 1 && 'const' in when[0]![1] && then?.properties) {
        const thenFields: Record<string, CompiledField> = {};
        for (const [name, child] of Object.entries(then.properties as Record<string, Schema>)) thenFields[name] = compileField(child);
        (out.c ??= []).push({ k: when[0]![0], v: when[0]![1].const, then: thenFields });
      }
      if (p.dependentRequired) out.dr = { ...out.dr, ...(p.dependentRequired as Record<string, string[]>) };
    }
    if (required.size) out.r = [...required];
    return out;
  }

  function mergeObjects(a: CompiledObject, b: CompiledObject): CompiledObject {
    return { ...a, ...b, k: { ...a.k, ...b.k }, r: [...new Set([...(a.r ?? []), ...(b.r ?? [])])] };
  }

  function compileField(schema: Schema): CompiledField {
    const list = parts(schema);
    const field: CompiledField = {};
    for (const p of list) {
      if (typeof p.type === 'string') field.t = [p.type];
      else if (Array.isArray(p.type)) field.t = p.type as string[];
      if (Array.isArray(p.enum)) field.e = p.enum as unknown[];
      if (typeof p.minimum === 'number') field.min = p.minimum;
      if (typeof p.maximum === 'number') field.max = p.maximum;
      if (typeof p.minLength === 'number') field.minLen = p.minLength;
      if (typeof p.maxLength === 'number') field.maxLen = p.maxLength;
      if (typeof p.minItems === 'number') field.minItems = p.minItems;
      if (typeof p.maxItems === 'number') field.maxItems = p.maxItems;
      if (p.uniqueItems === true) field.unique = true;
      if (typeof p.pattern === 'string') field.p = p.pattern;
      if (p.items) field.i = compileField(p.items as Schema);
      if (Array.isArray(p.oneOf)) field.u = (p.oneOf as Schema[]).map((alt) => compileObject(parts(alt)));
    }
    if (!field.u && isObject(list) && !field.t?.includes('array')) {
      field.o = compileObject(list);
      field.t = ['object'];
    }
    return field;
  }

  const rules: Record<string, CompiledObject> = {};
  const seen = new Set<string>();
  const checkReachable = (schema: Schema, where: string): void => {
    checkKeywords(schema, where);
    JSON.stringify(schema, (_key, value: unknown) => {
      const ref = (value as Schema | null)?.$ref;
      if (typeof ref === 'string' && !seen.has(ref)) {
        seen.add(ref);
        checkReachable(resolve({ $ref: ref }), ref);
      }
      return value;
    });
  };
  for (const name of requestSchemaNames(contract)) {
    const schema = schemas[name];
    if (!schema) throw new Error(`the contract has no ${name}`);
    checkReachable(schema, `#/components/schemas/${name}`);
    rules[name] = compileObject(parts(schema));
  }
  return rules;
}

export function requestRulesModule(contract: Contract): string {
  const rules = compileRequestRules(contract);
  return [
    "import type { ObjectRule } from '../request-rule.js';",
    '',
    `export type RequestSchemaName = ${Object.keys(rules).map((n) => `'${n}'`).join(' | ')};`,
    '',
    `export const requestRules: Readonly<Record<RequestSchemaName, ObjectRule>> = ${JSON.stringify(rules)};`,
    '',
  ].join('\n');
}
