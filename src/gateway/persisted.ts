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

/**
 * Checks the map now, each text with `check` too (a ValidationError naming the bad id) and indexes it by id at once and by
 * hash when `hashed` resolves (Web Crypto's digest is asynchronous).
 */
export function loadPersisted(documents: unknown, check?: (text: string) => string | undefined): PersistedDocuments & { readonly hashed: Promise<void> } {
  if (!isRecord(documents)) throw new ValidationError('persisted', 'must be a JSON object of document id to document text');
  const byKey = new Map<string, string>();
  for (const [id, text] of Object.entries(documents)) {
    if (typeof text !== 'string' || text.trim() === '') throw new ValidationError(`persisted.${id}`, 'must be the text of a GraphQL document');
    // A document the schema refuses would fail every caller that asks for it: refuse to start.
    const problem = check?.(text);
    if (problem !== undefined) throw new ValidationError(`persisted.${id}`, `is not a valid document for RunPod's schema: ${problem}`);
    byKey.set(id, text);
  }
  const size = byKey.size;
  const hashed = Promise.all([...byKey.values()].map(async (text) => [await sha256Hex(text), text] as const)).then((pairs) => {
    // By Apollo's bare hex and by the GraphQL-over-HTTP spelling codegen's client preset sends (`sha256:<hex>`).
    for (const [hash, text] of pairs) for (const key of [hash, `sha256:${hash}`]) if (!byKey.has(key)) byKey.set(key, text);
  });
  return { lookup: (key) => byKey.get(key), size, hashed };
}
