// Which API produced a result of `rp.pods` or `rp.gpuTypes`: a non-enumerable symbol property, so
// JSON, equality and spreading of results are unchanged.

import type { TransportPath } from './transport-choice.js';

const TRANSPORT = Symbol('transport');

/** Marks `value` as produced by `path` and returns it. */
export function tagTransport<T>(value: T, path: TransportPath): T {
  if (value && typeof value === 'object' && Object.isExtensible(value)) Object.defineProperty(value, TRANSPORT, { value: path, configurable: true });
  return value;
}

/**
 * The API a result of `rp.pods` or `rp.gpuTypes` came from: `'graphql'`, `'rest'` (REST v2, with
 * its lossy fields: see the README), or `undefined` for anything else (a copy made by spreading).
 */
export function transportOf(value: unknown): TransportPath | undefined {
  return value && typeof value === 'object' ? (value as { [TRANSPORT]?: TransportPath })[TRANSPORT] : undefined;
}
