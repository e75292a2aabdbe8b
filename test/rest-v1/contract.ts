import { existsSync, readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import formatsModule, { type FormatsPlugin } from 'ajv-formats';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = (formatsModule as unknown as { default: FormatsPlugin }).default;

/**
 * A checker built from the platform's REST v1 contract (the project's prose-free copy, so it runs
 * on every clone): it says whether the real server would accept a request.
 */
const contractUrl = new URL('../../src/contracts/rest-v1.openapi.json', import.meta.url);
export const contractAvailable = existsSync(contractUrl);

interface Parameter {
  name: string;
  in: 'query' | 'path';
  required?: boolean;
  schema: Record<string, unknown>;
}
interface Operation {
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { content: { 'application/json': { schema: { $ref: string } } } };
}
interface Contract {
  paths: Record<string, Record<string, Operation>>;
}

const contract: Contract = contractAvailable ? JSON.parse(readFileSync(contractUrl, 'utf8')) : { paths: {} };
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
if (contractAvailable) ajv.addSchema(contract as object, 'contract');

/** Every route of the contract, as `METHOD /path/{param}` (the meta routes /openapi.json and /docs left out). */
export function contractRoutes(): string[] {
  return Object.entries(contract.paths)
    .filter(([path]) => path !== '/openapi.json' && path !== '/docs')
    .flatMap(([path, ops]) => Object.keys(ops).filter((m) => m !== 'parameters').map((m) => `${m.toUpperCase()} ${path}`));
}

function matchRoute(method: string, pathname: string): { template: string; op: Operation } | undefined {
  for (const [template, ops] of Object.entries(contract.paths)) {
    const op = ops[method.toLowerCase()];
    if (!op) continue;
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (pattern.test(pathname)) return { template, op };
  }
  return undefined;
}

/** Problems the real server would have with this request; empty when it would accept it. */
export function contractProblems(method: string, url: URL, basePath: string, body: string | undefined): string[] {
  const pathname = url.pathname.slice(basePath.length);
  const route = matchRoute(method, pathname);
  if (!route) return [`no route ${method} ${pathname}`];
  const problems: string[] = [];
  const params = (route.op.parameters ?? []).filter((p): p is Parameter => !('$ref' in p));
  for (const name of new Set(url.searchParams.keys())) {
    const param = params.find((p) => p.in === 'query' && p.name === name);
    if (!param) {
      problems.push(`unknown query parameter ${name}`);
      continue;
    }
    const values = url.searchParams.getAll(name);
    const schema = param.schema;
    const coerce = (v: string, type: unknown) => (type === 'boolean' ? (v === 'true' ? true : v === 'false' ? false : v) : type === 'integer' || type === 'number' ? Number(v) : v);
    const value = schema.type === 'array' ? values.map((v) => coerce(v, (schema.items as { type?: string }).type)) : values.length === 1 ? coerce(values[0]!, schema.type) : values;
    if (!ajv.validate(schema, value)) problems.push(`query ${name}: ${ajv.errorsText()}`);
  }
  const bodyRef = route.op.requestBody?.content['application/json'].schema.$ref;
  if (bodyRef) {
    if (body === undefined) problems.push('missing JSON body');
    else if (!ajv.validate({ $ref: `contract${bodyRef}` }, JSON.parse(body))) problems.push(`body: ${ajv.errorsText()}`);
  } else if (body !== undefined) problems.push('unexpected body');
  return problems;
}
