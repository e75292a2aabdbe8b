// Runs graphql-codegen's client preset (the version this repository installs) on an app's own
// operations, with the README's config and with the other persisted-document shapes the preset
// writes, into a temporary folder: what the tests of both clients send by id.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from '@graphql-codegen/cli';
import type { Types } from '@graphql-codegen/plugin-helpers';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Each shape: the preset's config for it. `readme` is the README's config, word for word. */
export const PRESET_SHAPES = {
  // Today's preset: `__meta__: { hash: 'sha256:<hex>' }` on a TypedDocumentString.
  readme: { config: { documentMode: 'string', useTypeImports: true }, presetConfig: { persistedDocuments: true } },
  // The preset's default document mode: a DocumentNode with `__meta__.hash`.
  documentNode: { config: { useTypeImports: true }, presetConfig: { persistedDocuments: true } },
  // The earlier default algorithm: a bare SHA-1 hex hash.
  sha1: { config: { documentMode: 'string', useTypeImports: true }, presetConfig: { persistedDocuments: { hashAlgorithm: 'sha1' } } },
  // The document replaced by its id: `{ __meta__: { hash } }` and no text.
  idOnly: { config: { documentMode: 'string', useTypeImports: true }, presetConfig: { persistedDocuments: { mode: 'replaceDocumentWithHash' } } },
  // A `hashPropertyName` of `documentId`.
  documentId: { config: { documentMode: 'string', useTypeImports: true }, presetConfig: { persistedDocuments: { hashPropertyName: 'documentId' } } },
} as const;

export type PresetShape = keyof typeof PRESET_SHAPES;

export interface PresetOutput {
  /** The generated module of each shape (its `graphql.ts`). */
  modules: Record<PresetShape, Record<string, unknown>>;
  /** Every persisted-documents.json the preset wrote, merged (id → text). */
  persisted: Record<string, string>;
}

/** Runs the preset for each shape into `out/<shape>/` (a temporary folder by default). */
export async function runClientPreset(out = mkdtempSync(join(tmpdir(), 'runpod-gql-preset-'))): Promise<PresetOutput> {
  const generates = Object.fromEntries(Object.entries(PRESET_SHAPES).map(([shape, settings]) => [join(out, shape) + '/', { preset: 'client', ...settings }])) as Types.Config['generates'];
  await generate({ schema: join(root, 'schema.graphql'), documents: join(root, 'test/fixtures/preset/*.graphql'), generates, silent: true }, true);
  const modules = {} as PresetOutput['modules'];
  let persisted: Record<string, string> = {};
  for (const shape of Object.keys(PRESET_SHAPES) as PresetShape[]) {
    modules[shape] = (await import(join(out, shape, 'graphql.ts'))) as Record<string, unknown>;
    persisted = { ...persisted, ...(JSON.parse(readFileSync(join(out, shape, 'persisted-documents.json'), 'utf8')) as Record<string, string>) };
  }
  return { modules, persisted };
}
