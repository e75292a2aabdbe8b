// The persisted-document id a generated document carries, in every shape graphql-codegen writes:
// the client preset's `__meta__.hash` (`sha256:<hex>` since preset 5.x/6.x, the bare hex of SHA-1 or
// SHA-256 before, or whatever a custom `hashAlgorithm` returns), `__meta__.documentId` (a
// `hashPropertyName` that spells it so), and the package's own documents (16 hex digits). The
// document may be a TypedDocumentString, a DocumentNode, or (`mode: 'replaceDocumentWithHash'`) a
// plain object holding `__meta__` alone. Read by the full client and by the page fetcher alike.

/** What an id may look like: printable, no spaces, bounded (it travels as `documentId`). */
const ID = /^[\w.:+/=-]{1,256}$/;

/** The persisted-document id of `document`, or undefined when it carries none. */
export function persistedIdOf(document: unknown): string | undefined {
  const meta = document !== null && typeof document === 'object' ? (document as { __meta__?: unknown }).__meta__ : undefined;
  if (meta === null || typeof meta !== 'object') return undefined;
  const { hash, documentId } = meta as { hash?: unknown; documentId?: unknown };
  const id = typeof hash === 'string' ? hash : documentId;
  return typeof id === 'string' && ID.test(id) ? id : undefined;
}
