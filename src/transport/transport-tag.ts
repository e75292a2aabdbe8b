import type { TransportPath } from './transport-choice.js';

// A symbol, non-enumerable: the tag never shows in JSON.stringify, spreads, equality checks or logs.
const TRANSPORT = Symbol('runpod-gql.transport');

/** Marks which API produced `value` (an object); returns `value`. */
export function tagTransport<T>(value: T, path: TransportPath): T {
  if (typeof value === 'object' && value !== null && Object.isExtensible(value)) {
    Object.defineProperty(value, TRANSPORT, { value: path, enumerable: false, configurable: true });
  }
  return value;
}

/**
 * Which API produced a result of `rp.pods` or `rp.gpuTypes`: `'graphql'`, `'rest'` (REST v2, whose
 * results carry the documented lossy fields), or `undefined` for any other value.
 */
export function transportOf(value: unknown): TransportPath | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const path: unknown = (value as { [TRANSPORT]?: unknown })[TRANSPORT];
  return path === 'graphql' || path === 'rest' ? path : undefined;
}
