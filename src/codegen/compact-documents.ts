// graphql-codegen's typed-document-node plugin, with each document's text stripped of ignored
// characters (graphql-js's stripIgnoredCharacters): the same documents, without the indentation
// that every bundle of `runpod-gql/graphql` would otherwise carry (about 60 B gz of its 1 KB). The
// persisted ids are unchanged: they hash the printed text (document-hash.ts), not this one.
import type { PluginFunction, PluginValidateFn } from '@graphql-codegen/plugin-helpers';
import * as typedDocumentNode from '@graphql-codegen/typed-document-node';
import { stripIgnoredCharacters } from 'graphql';

const DOCUMENT_TEXT = /(new TypedDocumentString\(`)([^`]*)(`)/g;

/** Each document's text, compacted; one with an escape or a substitution in it is left as it is. */
export function compactDocuments(code: string): string {
  return code.replace(DOCUMENT_TEXT, (whole, open: string, text: string, close: string) => (/\\|\$\{/.test(text) ? whole : `${open}${stripIgnoredCharacters(text)}${close}`));
}

export const plugin: PluginFunction = async (schema, documents, config, info) => {
  const output = await typedDocumentNode.plugin(schema, documents, config, info);
  return typeof output === 'string' ? compactDocuments(output) : { ...output, content: compactDocuments(output.content) };
};

export const validate: PluginValidateFn | undefined = typedDocumentNode.validate;
