const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** An id shaped like the platform's (lowercase, 14 characters by default). */
export function newId(length = 14): string {
  const bytes = new Uint8Array(length);
  globalThis.crypto.getRandomValues(bytes);
  let out = '';
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}
