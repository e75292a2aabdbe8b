import type { GatewayErrorEntry } from './protocol.js';

/** What an executor answers: GraphQL's execution result. */
export interface GatewayExecutionResult {
  readonly data?: Record<string, unknown> | null | undefined;
  readonly errors?: readonly GatewayErrorEntry[] | undefined;
  readonly extensions?: Record<string, unknown> | undefined;
}

export interface ExecuteOptions {
  /** Ends when the caller goes away. */
  readonly signal?: AbortSignal | undefined;
}
