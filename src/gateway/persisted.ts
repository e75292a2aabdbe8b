import { ValidationError } from '../errors.js';
import { isRecord } from '../transport/shape.js';

/**
 * Persisted documents: id → document text, as codegen's persisted-documents output writes them.
 * With them, the gateway runs only these texts, asked for by id (`documentId`) or by Apollo's
 * `extensions.persistedQuery.sha256Hash` (the SHA-256 of the text, in hex).
 */
export interface PersistedDocuments {
  /** The text for an id or a SHA-256 hash, or undefined. */
  lookup(idOrHash: string): string | undefined;
  readonly size: number;
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

const HEX16 = /^[0-9a-f]{16}$/i;
const HEX64 = /^[0-9a-f]{64}$/i;

/**
 * Checks the map now, each text with `check` too (a ValidationError naming the bad id), and indexes
 * it by id at once and by hash when `hashed` resolves (Web Crypto's digest is asynchronous). A key
 * of 16 or 64 hex digits claims to be its text's id (this package's: the first 16 hex digits of the
 * SHA-256) or hash: one that is not is refused when `hashed` settles (the gateway does not start),
 * so no entry can be keyed by another document's id or hash. Ids and hashes are kept apart: a hash
 * is looked up among hashes only, anything else among the manifest's own keys.
 */
export function loadPersisted(documents: unknown, check?: (text: string) => string | undefined): PersistedDocuments & { readonly hashed: Promise<void> } {
  if (!isRecord(documents)) throw new ValidationError('persisted', 'must be a JSON object of document id to document text');
  const byId = new Map<string, string>();
  const byHash = new Map<string, string>();
  for (const [id, text] of Object.entries(documents)) {
    if (typeof text !== 'string' || text.trim() === '') throw new ValidationError(`persisted.${id}`, 'must be the text of a GraphQL document');
    // A document the schema refuses would fail every caller that asks for it: refuse to start.
    const problem = check?.(text);
    if (problem !== undefined) throw new ValidationError(`persisted.${id}`, `is not a valid document for RunPod's schema: ${problem}`);
    byId.set(HEX16.test(id) ? id.toLowerCase() : id, text);
  }
  const size = byId.size;
  const hashed = Promise.all([...byId].map(async ([id, text]) => [id, text, await sha256Hex(text)] as const)).then((entries) => {
    for (const [id, text, hash] of entries) {
      if (HEX16.test(id) && id !== hash.slice(0, 16)) throw new ValidationError(`persisted.${id}`, "is 16 hex digits, so it must be its text's id (the first 16 hex digits of the text's SHA-256), and it is not: the manifest does not match its documents");
      if (HEX64.test(id) && id.toLowerCase() !== hash) throw new ValidationError(`persisted.${id}`, "is 64 hex digits, so it must be its text's SHA-256, and it is not: the manifest does not match its documents");
      byHash.set(hash, text);
    }
    for (const id of [...byId.keys()]) if (HEX64.test(id)) byId.delete(id);
  });
  return {
    lookup: (key) => (HEX64.test(key) ? byHash.get(key.toLowerCase()) : byId.get(HEX16.test(key) ? key.toLowerCase() : key)),
    size,
    hashed,
  };
}
