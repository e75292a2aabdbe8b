// A graphql-codegen plugin: `persisted-documents.json` for the package's own operations (hash →
// document text, as graphql-codegen's client preset writes it). The hashes are the ones codegen.ts
// puts on each generated document (`__meta__.hash`), so `rp.graphql.request` can send
// `{ documentId }` and a `--persisted` gateway can run the package's own operations.
import type { PluginFunction } from '@graphql-codegen/plugin-helpers';
import { Kind } from 'graphql';
import { documentIdOf, persistedText } from './document-hash.js';

export const plugin: PluginFunction = (_schema, documents) => {
  const definitions = documents.flatMap((file) => file.document?.definitions ?? []);
  const entries = definitions
    .filter((d) => d.kind === Kind.OPERATION_DEFINITION)
    .map((operation) => {
      const text = persistedText(operation, definitions);
      return [documentIdOf(text), text] as const;
    })
    .sort(([a], [b]) => a.localeCompare(b));
  return `${JSON.stringify(Object.fromEntries(entries), null, 1)}\n`;
};
