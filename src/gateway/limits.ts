import { Kind, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { ValidationError } from '../errors.js';
import { Refusal } from './protocol.js';

/** What one request may ask of the gateway. Each excess is refused with a GraphQL error before anything runs. */
export interface GatewayLimits {
  /** Deepest field nesting, fragments expanded (`{ myself { pods { id } } }` is 3). @default 10 */
  readonly maxDepth?: number | undefined;
  /** Most aliased fields in one operation, fragments expanded. @default 30 */
  readonly maxAliases?: number | undefined;
  /** Largest request body (POST) or query string (GET), in bytes. @default 102400 */
  readonly maxBodyBytes?: number | undefined;
  /**
   * Requests per caller (token, pass-through key, or the anonymous caller) per `intervalMs`,
   * shared between gateways that share a `rateStore`. `false`: no limit.
   * @default 300 per 60000 ms
   */
  readonly rate?: false | { readonly requests: number; readonly intervalMs: number } | undefined;
}

export interface ResolvedLimits {
  readonly maxDepth: number;
  readonly maxAliases: number;
  readonly maxBodyBytes: number;
  readonly rate: false | { readonly requests: number; readonly intervalMs: number };
}

const positiveInteger = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;

export function resolveLimits(limits: GatewayLimits = {}): ResolvedLimits {
  for (const field of ['maxDepth', 'maxAliases', 'maxBodyBytes'] as const) {
    if (limits[field] != null && !positiveInteger(limits[field])) throw new ValidationError(`limits.${field}`, 'must be an integer above 0');
  }
  const rate = limits.rate ?? { requests: 300, intervalMs: 60_000 };
  if (rate !== false && (!positiveInteger(rate.requests) || !positiveInteger(rate.intervalMs))) {
    throw new ValidationError('limits.rate', 'must be false or { requests, intervalMs } with integers above 0');
  }
  return { maxDepth: limits.maxDepth ?? 10, maxAliases: limits.maxAliases ?? 30, maxBodyBytes: limits.maxBodyBytes ?? 102_400, rate };
}

/**
 * Refuses an operation deeper than `maxDepth` or with more than `maxAliases` aliases. Fragments
 * count where they are spread; each fragment is walked once per depth at which it is spread, so a
 * document cannot make this walk itself expensive.
 */
export function checkShape(document: DocumentNode, operation: OperationDefinitionNode, limits: ResolvedLimits): void {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  let aliases = 0;
  const walked = new Set<string>();
  const walk = (set: SelectionSetNode, depth: number): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.alias) aliases++;
        if (aliases > limits.maxAliases) throw new Refusal(400, `the operation has more than ${limits.maxAliases} aliases, the gateway's limit`, 'ALIAS_LIMIT');
        if (selection.selectionSet) {
          if (depth + 1 > limits.maxDepth) throw new Refusal(400, `the operation is nested deeper than ${limits.maxDepth} levels, the gateway's limit`, 'DEPTH_LIMIT');
          walk(selection.selectionSet, depth + 1);
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(selection.selectionSet, depth);
      } else {
        const fragment = fragments.get(selection.name.value);
        const key = `${selection.name.value}@${depth}`;
        if (!fragment || walked.has(key)) continue;
        walked.add(key);
        walk(fragment.selectionSet, depth);
      }
    }
  };
  walk(operation.selectionSet, 1);
}
