// A create carries a marker that the platform keeps on the resource (as an environment variable),
// so that after an ambiguous failure the client can find out whether it was created.

/** The environment variable that holds a create's marker on the pod. */
export const CREATE_MARKER_ENV = 'RUNPOD_GQL_CREATE_MARKER';

/** A fresh random marker (128 bits, hex), from Web Crypto so it works on every runtime. */
export function newCreateMarker(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * How a create looks for its pod after an ambiguous failure: at most `attempts` lookups,
 * `intervalMs` apart (the first at once).
 */
export interface MarkerLookupOptions {
  readonly attempts?: number | undefined;
  readonly intervalMs?: number | undefined;
}
