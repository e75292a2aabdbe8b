import { readFileSync } from 'node:fs';
import { Validator } from '@cfworker/json-schema';

// Checks requests against the project's prose-free copy of the REST v2 contract (OpenAPI 3.1):
// @cfworker/json-schema validates JSON Schema 2020-12, including unevaluatedProperties.

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  explode?: boolean;
  schema: Schema;
}
interface Operation {
  operationId: string;
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, unknown>;
}
interface Contract {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; parameters: Record<string, Parameter> };
}

export const contract: Contract = JSON.parse(readFileSync(new URL('../../src/contracts/rest-v2.openapi.json', import.meta.url), 'utf8'));

const validators = new Map<string, Validator>();
function validatorFor(schema: Schema): Validator {
  const key = JSON.stringify(schema);
  let validator = validators.get(key);
  if (!validator) {
    validator = new Validator({ ...schema, components: contract.components }, '2020-12', false);
    validators.set(key, validator);
  }
  return validator;
}

function problemsOf(schema: Schema, value: unknown, where: string): string[] {
  const result = validatorFor(schema).validate(value);
  return result.valid ? [] : result.errors.map((e) => `${where}${e.instanceLocation.slice(1)}: ${e.error}`);
}

/** Every operation of the contract, as `METHOD /v2/path/{param}`. */
export function contractOperations(): string[] {
  return Object.entries(contract.paths).flatMap(([path, ops]) =>
    Object.keys(ops)
      .filter((m) => m !== 'parameters')
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
}

export function matchOperation(method: string, pathname: string): { route: string; op: Operation } | undefined {
  // Literal segments first: /v2/registries/delegations is not /v2/registries/{id}.
  const candidates = Object.entries(contract.paths).sort(([a], [b]) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  for (const [template, ops] of candidates) {
    const op = ops[method.toLowerCase()];
    if (op && new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(pathname)) return { route: `${method} ${template}`, op };
  }
  return undefined;
}

function parametersOf(op: Operation): Parameter[] {
  return (op.parameters ?? []).map((p) => ('$ref' in p ? contract.components.parameters[p.$ref.split('/').pop()!]! : p));
}

function coerce(value: string, schema: Schema): unknown {
  const resolved = typeof schema.$ref === 'string' ? contract.components.schemas[schema.$ref.split('/').pop()!]! : schema;
  if (resolved.type === 'integer' || resolved.type === 'number') return value.trim() === '' ? value : Number(value);
  if (resolved.type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  return value;
}

/**
 * Problems the real server would have with this request (path, query, headers, body); empty when
 * it would accept it. `url` is the full request URL; its path must start with `/v2`.
 */
export function contractProblems(method: string, url: URL, headers: Headers, body: string | undefined): string[] {
  const match = matchOperation(method, url.pathname);
  if (!match) return [`no operation ${method} ${url.pathname}`];
  const problems: string[] = [];
  const params = parametersOf(match.op);
  for (const name of new Set(url.searchParams.keys())) {
    const param = params.find((p) => p.in === 'query' && p.name === name);
    if (!param) {
      problems.push(`unknown query parameter ${name}`);
      continue;
    }
    const values = url.searchParams.getAll(name);
    if (values.length > 1) problems.push(`query ${name} repeated; the contract wants one value`);
    const raw = values[0]!;
    const itemSchema = param.schema.items as Schema | undefined;
    const value = param.schema.type === 'array' ? raw.split(',').map((v) => coerce(v, itemSchema ?? {})) : coerce(raw, param.schema);
    problems.push(...problemsOf(param.schema, value, `query ${name}`));
  }
  for (const param of params.filter((p) => p.in === 'header')) {
    const value = headers.get(param.name);
    if (value !== null) problems.push(...problemsOf(param.schema, value, `header ${param.name}`));
  }
  const bodySchema = match.op.requestBody?.content['application/json']?.schema;
  if (bodySchema) {
    if (body === undefined) problems.push('missing JSON body');
    else problems.push(...problemsOf(bodySchema, JSON.parse(body), 'body'));
  } else if (body !== undefined) problems.push('unexpected body');
  return problems;
}
