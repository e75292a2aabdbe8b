// Compiles the REST v2 contract's request-body schemas into the compact rules the client checks
// before sending (src/rest/request-check.ts), so the client bundle does not carry the contract.
// Only what a body can get wrong is kept: keys, required keys, types, enums, bounds, patterns.

type Schema = Record<string, unknown>;

export interface CompiledField {
  t?: string[];
  e?: unknown[];
  min?: number;
  max?: number;
  minLen?: number;
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

export const REQUEST_SCHEMAS = [
  'CreatePodRequest',
  'UpdatePodRequest',
  'PodActionRequest',
  'CreateEndpointRequest',
  'UpdateEndpointRequest',
  'CreateTemplateRequest',
  'UpdateTemplateRequest',
  'CreateNetworkVolumeRequest',
  'UpdateNetworkVolumeRequest',
  'CreateRegistryRequest',
  'CreateDelegationRequest',
  'UpdateSshKeysRequest',
  'CreateClusterRequest',
  'UpdateClusterRequest',
] as const;

export function compileRequestRules(contract: { components: { schemas: Record<string, Schema> } }): Record<string, CompiledObject> {
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
  for (const name of REQUEST_SCHEMAS) {
    const schema = schemas[name];
    if (!schema) throw new Error(`the contract has no ${name}`);
    rules[name] = compileObject(parts(schema));
  }
  return rules;
}

export function requestRulesModule(contract: { components: { schemas: Record<string, Schema> } }): string {
  const rules = compileRequestRules(contract);
  return [
    "import type { ObjectRule } from '../request-check.js';",
    '',
    `export type RequestSchemaName = ${REQUEST_SCHEMAS.map((n) => `'${n}'`).join(' | ')};`,
    '',
    `export const requestRules: Readonly<Record<RequestSchemaName, ObjectRule>> = ${JSON.stringify(rules)};`,
    '',
  ].join('\n');
}
