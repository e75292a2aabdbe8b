import { ValidationError } from '../errors.js';
import { isRecord } from '../transport/shape.js';

/**
 * Persisted documents: id → document text, as codegen's persisted-documents output writes them.
 * With them, the gateway runs only these texts, asked for by id (`documentId`), by the SHA-256 of
 * the text as `documentId: "sha256:<hex>"`, or by Apollo's `extensions.persistedQuery.sha256Hash`
 * (the same hex). A request with both an id and `query` runs the persisted text.
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
// The GraphQL-over-HTTP spelling of a hash, which codegen's client preset sends as `documentId`.
const SHA256_ID = /^sha256:([0-9a-f]{64})$/i;
/** The SHA-256 a key names (bare hex or `sha256:<hex>`), lower-cased; undefined when it names none. */
const hashOf = (key: string): string | undefined => (HEX64.test(key) ? key : SHA256_ID.exec(key)?.[1])?.toLowerCase();

/**
 * Checks the map now, each text with `check` too (a ValidationError naming the bad id), and indexes
 * it by id at once and by hash when `hashed` resolves (Web Crypto's digest is asynchronous). A key
 * of 16 or 64 hex digits claims to be its text's id (this package's: the first 16 hex digits of the
 * SHA-256) or hash (bare, or as `sha256:<hex>`): one that is not is refused when `hashed` settles
 * (the gateway does not start), so no entry can be keyed by another document's id or hash. Ids and
 * hashes are kept apart: a hash (bare, or as `sha256:<hex>`, the spelling codegen's client preset
 * sends) is looked up among hashes only, anything else among the manifest's own keys.
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
      const claimed = hashOf(id);
      if (claimed !== undefined && claimed !== hash) throw new ValidationError(`persisted.${id}`, `${HEX64.test(id) ? 'is' : 'names'} 64 hex digits, so it must be its text's SHA-256, and it is not: the manifest does not match its documents`);
      byHash.set(hash, text);
    }
    for (const id of [...byId.keys()]) if (hashOf(id) !== undefined) byId.delete(id);
  });
  return {
    lookup: (key) => {
      const hash = hashOf(key);
      return hash !== undefined ? byHash.get(hash) : byId.get(HEX16.test(key) ? key.toLowerCase() : key);
    },
    size,
    hashed,
  };
}
