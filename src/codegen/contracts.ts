// Keeps the project's prose-free copies of the platform's contracts (src/contracts/) and the REST
// modules generated from them (src/rest/__generated__/, src/emulator/__generated__/).
//
//   tsx src/codegen/contracts.ts copy     re-make the copies from ../shared/reference (needs ../shared)
//
// The REST v2 copy is three layers merged in order: the Frontdoor v2.9.0 contract, the delta of
// what production serves since (rest-v2-openapi-delta.json), and the project's own supplement
// (src/contracts/rest-v2-supplement.json: what the delta leaves open, read from the vendored spec,
// and the documented-facts operations). src/contracts/rest-v2-provenance.json names each piece's source.
//   tsx src/codegen/contracts.ts verify   fail when a copy no longer matches ../shared (skips without it)
//   tsx src/codegen/contracts.ts types    re-generate the REST v2 types and the emulator's contract module
//   tsx src/codegen/contracts.ts check    fail when those are stale
//
// A copy keeps every structural keyword and drops `description`, `summary`, `example` and
// `examples` (and the `x-codeSamples` extension, which is sample code) wherever they are keywords (a schema property that happens to be called `summary`
// stays), so no prose from the reference files enters the project.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse, print, visit } from 'graphql';
import { mergeSchema, type SchemaCorrections } from './graphql-schema.js';
import openapiTS, { astToString } from 'openapi-typescript';
import { requestRulesModule } from './request-rules.js';

const root = new URL('../../', import.meta.url);
// RUNPOD_GQL_REFERENCE points elsewhere (a worktree's ../shared is not the checkout's).
export const shared = process.env.RUNPOD_GQL_REFERENCE ? pathToFileURL(`${process.env.RUNPOD_GQL_REFERENCE.replace(/\/$/, '')}/`) : new URL('../shared/reference/', root);
const at = (path: string) => fileURLToPath(new URL(path, root));

const PROSE_KEYS = new Set(['description', 'summary', 'example', 'examples', 'x-codeSamples']);
/** Keywords whose value maps names chosen by the contract's author to schemas. */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'schemas', 'dependentSchemas']);

export function stripProse(value: unknown, parentKey = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => stripProse(item));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (!NAME_MAPS.has(parentKey) && PROSE_KEYS.has(key)) continue;
    out[key] = stripProse(child, NAME_MAPS.has(parentKey) ? '' : key);
  }
  return out;
}

export function stripSdlProse(sdl: string): string {
  // print() drops comments; descriptions are removed node by node.
  const document = visit(parse(sdl), {
    enter(node) {
      if ('description' in node && node.description) return { ...node, description: undefined };
      return undefined;
    },
  });
  return `${print(document)}\n`;
}

interface ContractFile {
  readonly reference: string;
  readonly copy: string;
  readonly make: (text: string) => string;
}

const json = (text: string) => `${JSON.stringify(stripProse(JSON.parse(text)), null, 1)}\n`;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The delta's own notes on where each piece came from: kept in the provenance table, not in the copy. */
const DELTA_NOTES = new Set(['x-from', 'x-parameters-inferred', 'x-response-inferred']);

function dropNotes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNotes);
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !DELTA_NOTES.has(k)).map(([k, v]) => [k, dropNotes(v)]));
}

/**
 * `layer` over `base`: a path item's methods and `parameters` replace the base's one by one (the
 * other methods stay), and each named component replaces the base's of that name.
 */
export function mergeLayer(base: Json, layer: Json): Json {
  const out = structuredClone(base);
  const paths = (out.paths ??= {}) as Record<string, Json>;
  for (const [path, item] of Object.entries((layer.paths ?? {}) as Record<string, Json>)) paths[path] = { ...paths[path], ...item };
  const components = (out.components ??= {}) as Record<string, Json>;
  for (const [kind, named] of Object.entries((layer.components ?? {}) as Record<string, Json>)) components[kind] = { ...components[kind], ...named };
  const missing = danglingRefs(out);
  if (missing.length) throw new Error(`contracts: the merged REST v2 contract refers to what it does not define: ${missing.join(', ')}`);
  return out;
}

function danglingRefs(contract: Json): string[] {
  const missing = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!isObject(v)) return;
    if (typeof v.$ref === 'string') {
      let at: unknown = contract;
      for (const part of v.$ref.replace(/^#\//, '').split('/')) at = isObject(at) ? at[part] : undefined;
      if (at === undefined) missing.add(v.$ref);
    }
    Object.values(v).forEach(walk);
  };
  walk(contract);
  return [...missing].sort();
}

const SUPPLEMENT = 'src/contracts/rest-v2-supplement.json';

/** v2.9.0, then the delta, then the project's supplement; prose-free. */
function restV2(text: string): string {
  const base = stripProse(JSON.parse(text)) as Json;
  const delta = dropNotes(stripProse(JSON.parse(readFileSync(new URL('rest-v2-openapi-delta.json', shared), 'utf8')))) as Json;
  const supplement = JSON.parse(readFileSync(at(SUPPLEMENT), 'utf8')) as Json;
  const merged = mergeLayer(mergeLayer(base, { paths: delta.paths, components: delta.components }), supplement);
  return `${JSON.stringify(merged, null, 1)}\n`;
}

export const CONTRACTS: readonly ContractFile[] = [
  { reference: 'rest-v2-openapi.json', copy: 'src/contracts/rest-v2.openapi.json', make: restV2 },
  { reference: 'graphql-reference-schema.graphql', copy: 'src/contracts/graphql-reference.graphql', make: stripSdlProse },
];

const V2_CONTRACT = 'src/contracts/rest-v2.openapi.json';
const GRAPHQL_REFERENCE = 'src/contracts/graphql-reference.graphql';
const GRAPHQL_ADDITIONS = 'src/contracts/graphql-additions.graphql';
const GRAPHQL_CORRECTIONS = 'src/contracts/graphql-corrections.json';

/**
 * schema.graphql: the reference copy, less the fields production refuses (the corrections file says
 * why for each), plus the additions read from newer production-derived sources (each named in
 * src/contracts/graphql-provenance.json). Checked to build, so an addition or correction that names
 * something the reference lacks fails `npm run codegen`, not a user's codegen.
 */
export function schemaModule(reference: string, additions: string, corrections: SchemaCorrections): string {
  return [
    '# GENERATED by `npm run codegen` from src/contracts/graphql-reference.graphql (RunPod\'s public GraphQL',
    '# schema, prose-free), less src/contracts/graphql-corrections.json (fields production refuses), plus',
    '# src/contracts/graphql-additions.graphql (what production accepts beyond the reference, each',
    '# coordinate with its source in src/contracts/graphql-provenance.json). DO NOT EDIT.',
    '# Codegen, the in-process executor, the emulator and the gateway all use this schema.',
    '',
    mergeSchema(reference, additions, corrections).trimEnd(),
    '',
  ].join('\n');
}

/** What `npm run codegen` merges schema.graphql from, read from this checkout. */
export const schemaInputs = (): { reference: string; additions: string; corrections: SchemaCorrections } => ({
  reference: readFileSync(at(GRAPHQL_REFERENCE), 'utf8'),
  additions: readFileSync(at(GRAPHQL_ADDITIONS), 'utf8'),
  corrections: JSON.parse(readFileSync(at(GRAPHQL_CORRECTIONS), 'utf8')) as SchemaCorrections,
});

const BANNER = [
  '/* eslint-disable */',
  '// GENERATED by `npm run codegen` (openapi-typescript) from the prose-free contract copy in src/contracts/. DO NOT EDIT.',
  '// `npm run codegen:check` fails in CI when this file is stale.',
  '',
].join('\n');

/** Every generated file and how to make it. */
const GENERATED: ReadonlyArray<{ readonly out: string; readonly make: () => Promise<string> }> = [
  {
    // The package's schema is the platform's: the prose-free reference copy, less what production
    // refuses, plus what production accepts beyond that copy (each addition named in the provenance).
    out: 'schema.graphql',
    async make() {
      const { reference, additions, corrections } = schemaInputs();
      return schemaModule(reference, additions, corrections);
    },
  },
  {
    out: 'src/rest/__generated__/rest-v2.ts',
    async make() {
      const ast = await openapiTS(JSON.parse(readFileSync(at(V2_CONTRACT), 'utf8')), { defaultNonNullable: true });
      return `${BANNER}${astToString(ast)}`;
    },
  },
  {
    // A readable name for every schema and every operation's query of the contract, so a new
    // resource needs no names added by hand (src/rest/types.ts re-exports these).
    out: 'src/rest/__generated__/names.ts',
    async make() {
      return `${BANNER.replace('(openapi-typescript)', '(src/codegen/contracts.ts)')}${namesModule(JSON.parse(readFileSync(at(V2_CONTRACT), 'utf8')) as Json)}`;
    },
  },
  {
    // What the client checks before sending a REST v2 body, compiled from the contract's schemas.
    out: 'src/rest/__generated__/request-rules.ts',
    async make() {
      return `${BANNER.replace('(openapi-typescript)', '(src/codegen/request-rules.ts)')}${requestRulesModule(JSON.parse(readFileSync(at(V2_CONTRACT), 'utf8')))}`;
    },
  },
  {
    // The emulator validates bodies and answers against the contract at run time, from the
    // installed package too, so it ships as a module (JSON.parse of one string loads fastest).
    out: 'src/emulator/__generated__/rest-v2-contract.ts',
    async make() {
      const minified = JSON.stringify(JSON.parse(readFileSync(at(V2_CONTRACT), 'utf8')));
      return `${BANNER}export const restV2Contract: unknown = JSON.parse(${JSON.stringify(minified)});\n`;
    },
  },
];

/** What `copy` would write for `c` from the reference files now. */
export const madeCopy = (c: ContractFile): string => c.make(readFileSync(new URL(c.reference, shared), 'utf8'));

/** `listPods` → `ListPodsQuery`. */
const queryName = (operationId: string) => `${operationId[0]!.toUpperCase()}${operationId.slice(1)}Query`;

export function namesModule(contract: Json): string {
  const schemas = Object.keys(((contract.components as Json).schemas ?? {}) as Json);
  const queries: string[] = [];
  for (const item of Object.values(contract.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      if (method === 'parameters' || !isObject(op)) continue;
      const params = [...((item.parameters as Json[] | undefined) ?? []), ...((op.parameters as Json[] | undefined) ?? [])];
      const resolved = params.map((p) => (typeof p.$ref === 'string' ? ((contract.components as Json).parameters as Json)[p.$ref.split('/').pop()!] : p) as Json);
      if (resolved.some((p) => p.in === 'query')) queries.push(String(op.operationId));
    }
  }
  const clash = queries.map(queryName).filter((n) => schemas.includes(n));
  if (clash.length) throw new Error(`contracts: a query type name is also a schema name: ${clash.join(', ')}`);
  return [
    "import type { components, operations } from './rest-v2.js';",
    '',
    "type S = components['schemas'];",
    '',
    ...schemas.map((name) => `export type ${name} = S['${name}'];`),
    '',
    ...queries.map((id) => `export type ${queryName(id)} = NonNullable<operations['${id}']['parameters']['query']>;`),
    '',
  ].join('\n');
}

function write(path: string, text: string): void {
  mkdirSync(dirname(at(path)), { recursive: true });
  writeFileSync(at(path), text);
}

async function main(command: string | undefined): Promise<number> {
  const haveShared = existsSync(shared);
  switch (command) {
    case 'copy':
      if (!haveShared) {
        console.error('contracts copy: ../shared/reference is not beside this clone');
        return 1;
      }
      for (const c of CONTRACTS) write(c.copy, madeCopy(c));
      return 0;
    case 'verify': {
      if (!haveShared) {
        console.log('contracts verify: skipped, ../shared/reference is not beside this clone');
        return 0;
      }
      const stale = CONTRACTS.filter((c) => !existsSync(at(c.copy)) || readFileSync(at(c.copy), 'utf8') !== madeCopy(c));
      for (const c of stale) console.error(`contracts verify: ${c.copy} no longer matches ../shared/reference/${c.reference}; run \`npm run contracts\``);
      if (!stale.length) console.log(`contracts verify: ${CONTRACTS.length} copies match ../shared/reference`);
      return stale.length ? 1 : 0;
    }
    case 'types':
      for (const g of GENERATED) write(g.out, await g.make());
      return 0;
    case 'check': {
      let stale = 0;
      for (const g of GENERATED) {
        if (!existsSync(at(g.out)) || readFileSync(at(g.out), 'utf8') !== (await g.make())) {
          console.error(`codegen:check: ${g.out} is stale; run \`npm run codegen\``);
          stale++;
        }
      }
      return stale ? 1 : 0;
    }
    default:
      console.error('usage: tsx src/codegen/contracts.ts copy|verify|types|check');
      return 2;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv[2]);
}
