import { Validator, type OutputUnit } from '@cfworker/json-schema';
import { restV2Contract } from '../__generated__/rest-v2-contract.js';
import { problem } from './problem.js';

const CONTRACT_ID = 'https://contract.invalid/rest-v2';
type Schema = Record<string, unknown>;
const contract = restV2Contract as { components: { schemas: Record<string, Schema> } };
const validators = new Map<string, Validator>();

function validatorFor(name: string): Validator {
  let validator = validators.get(name);
  if (!validator) {
    validator = new Validator({ $ref: `${CONTRACT_ID}#/components/schemas/${name}` }, '2020-12', false);
    validator.addSchema(restV2Contract as Schema, CONTRACT_ID);
    validators.set(name, validator);
  }
  return validator;
}

function resolve(schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  return contract.components.schemas[ref.split('/').pop()!] ?? {};
}

/** Every schema that applies at one place, through `$ref`, `allOf`, `oneOf`, `anyOf` and `if`/`then`. */
function branches(schema: Schema, out: Schema[] = []): Schema[] {
  const s = resolve(schema);
  if (out.includes(s)) return out;
  out.push(s);
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) for (const sub of (s[key] as Schema[] | undefined) ?? []) branches(sub, out);
  for (const key of ['then', 'else'] as const) if (s[key]) branches(s[key] as Schema, out);
  return out;
}

function propertyNames(schemas: Schema[]): Set<string> {
  const names = new Set<string>();
  for (const s of schemas) for (const name of Object.keys((s.properties as Schema | undefined) ?? {})) names.add(name);
  return names;
}

/** The schemas that govern the value at `path` inside a value of `root`. */
function schemasAt(root: Schema, path: string[]): Schema[] {
  let current = branches(root);
  for (const segment of path) {
    const next: Schema[] = [];
    for (const s of current) {
      const property = (s.properties as Record<string, Schema> | undefined)?.[segment];
      if (property) branches(property, next);
      else if (/^\d+$/.test(segment) && s.items) branches(s.items as Schema, next);
      else if (s.additionalProperties && typeof s.additionalProperties === 'object') branches(s.additionalProperties as Schema, next);
    }
    current = next;
  }
  return current;
}

const COMPOSITE = new Set(['$ref', 'allOf', 'anyOf', 'oneOf', 'if', 'then', 'else', 'properties', 'items', 'prefixItems', 'additionalProperties', 'unevaluatedProperties', 'dependentSchemas', 'not', 'false']);

function pointerToPath(pointer: string): string[] {
  return pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((p) => decodeURIComponent(p).replace(/~1/g, '/').replace(/~0/g, '~'));
}

const where = (path: string[]) => ['$', ...path].join('.');

/**
 * The contract's verdict on `body` as `schemaName`, one message per problem, in the server's
 * style: `$.gpu: additional properties 'foo' not allowed`, `$: missing property 'image'`.
 */
export function contractErrors(schemaName: string, body: unknown): string[] {
  const result = validatorFor(schemaName).validate(body);
  if (result.valid) return [];
  const root: Schema = { $ref: `#/components/schemas/${schemaName}` };
  const messages = new Set<string>();
  for (const unit of result.errors as OutputUnit[]) {
    const path = pointerToPath(unit.instanceLocation);
    if (unit.keyword === 'unevaluatedProperties' || unit.keyword === 'additionalProperties') {
      const name = /Property "([^"]*)"/.exec(unit.error)?.[1];
      // A failed branch drops its annotations, so a known field can be reported as unevaluated: keep only unknown ones.
      if (name !== undefined && !propertyNames(schemasAt(root, path)).has(name)) messages.add(`${where(path)}: additional properties '${name}' not allowed`);
      continue;
    }
    if (COMPOSITE.has(unit.keyword)) continue;
    if (unit.keyword === 'required') {
      const name = /property "([^"]*)"/.exec(unit.error)?.[1];
      messages.add(`${where(path)}: missing property '${name ?? '?'}'`);
      continue;
    }
    messages.add(`${where(path)}: ${unit.keyword}: ${unit.error}`);
  }
  if (messages.size === 0) messages.add('$: does not match the schema');
  return [...messages];
}

/** The methods the contract serves at a concrete path (empty when it knows no such path). */
export function methodsAt(pathname: string): string[] {
  const paths = (restV2Contract as { paths: Record<string, Record<string, unknown>> }).paths;
  const segments = pathname.split('/').filter(Boolean);
  const methods = new Set<string>();
  for (const [path, ops] of Object.entries(paths)) {
    const template = path.split('/').filter(Boolean);
    if (template.length === segments.length && template.every((t, i) => t.startsWith('{') || t === segments[i])) {
      for (const method of Object.keys(ops)) if (method !== 'parameters') methods.add(method.toUpperCase());
    }
  }
  return [...methods];
}

/** Reads a JSON body and checks it against the contract's request schema; 422 problem+json otherwise. */
export async function readContractBody<T>(request: { json(): Promise<unknown> }, schemaName: string): Promise<T> {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    throw problem(400, 'Request body is not valid JSON.');
  }
  const errors = contractErrors(schemaName, body);
  if (errors.length > 0) throw problem(422, 'Request validation failed.', errors);
  return body as T;
}
