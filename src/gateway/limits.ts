import { Kind, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { ValidationError } from '../errors.js';
import { Refusal } from './protocol.js';

/** What one request may ask of the gateway. Each excess is refused with a GraphQL error before anything runs. */
export interface GatewayLimits {
  /** Deepest field nesting, fragments expanded (`{ myself { pods { id } } }` is 3). @default 10 */
  readonly maxDepth?: number | undefined;
  /** Most aliased fields in one operation, counted through every spread of every fragment. @default 30 */
  readonly maxAliases?: number | undefined;
  /** Longest document, in lexical tokens: past it the parser stops. @default 1000 */
  readonly maxTokens?: number | undefined;
  /** Most fragment definitions in one document. @default 50 */
  readonly maxFragments?: number | undefined;
  /** Most fragment spreads (`...Name`) directly in one selection set. @default 10 */
  readonly maxSpreadsPerSelection?: number | undefined;
  /** Largest request body (POST) or query string (GET), in bytes. @default 102400 */
  readonly maxBodyBytes?: number | undefined;
  /**
   * Documents of one caller running upstream at once, in this gateway; past it, 429.
   * @default 4
   */
  readonly maxInFlight?: number | undefined;
  /**
   * How long a caller's document past its in-flight limit waits for one of its slots, in line;
   * past it (or past `maxQueued` waiting), 429 `TOO_MANY_IN_FLIGHT`. `0`: refused at once.
   * @default 10000
   */
  readonly queueWaitMs?: number | undefined;
  /** Most documents of one caller waiting for a slot; past it, 429 at once. @default 64 */
  readonly maxQueued?: number | undefined;
  /**
   * Milliseconds a document may run, from the moment it is sent upstream; past it, 504. A create
   * that may have reached RunPod is still answered with its `createMarker`. @default 30000
   */
  readonly deadlineMs?: number | undefined;
  /**
   * How long a document may wait for RunPod's rate limit to lift. When RunPod has asked for a
   * longer pause, the document is answered 503 `UPSTREAM_RATE_LIMITED` with the remaining
   * `Retry-After` at once, instead of waiting on the connection. @default 2000
   */
  readonly pacingWaitMs?: number | undefined;
  /**
   * Upstream calls per caller (token, pass-through key, or the anonymous caller) per `intervalMs`:
   * a document costs one call, and one more for each upstream answer past its first. Shared between
   * gateways that share a `rateStore`. `false`: no limit.
   * @default 300 per 60000 ms
   */
  readonly rate?: false | { readonly requests: number; readonly intervalMs: number } | undefined;
  /**
   * Upstream calls one document may make (every attempt counts); the call past it is not sent, and
   * the field that needed it is answered with a `CALL_LIMIT` error. @default 1000
   */
  readonly maxUpstreamCalls?: number | undefined;
  /**
   * Pages one list of a document is read to, whatever the caller's `maxPages`: a list that still
   * has a next page after them ends in a `PAGE_LIMIT` error (a server that hands out a fresh
   * cursor on every page never ends). @default 200
   */
  readonly maxPages?: number | undefined;
  /** Items the lists of one document may hold, all lists together; past it, `ITEM_LIMIT`. @default 50000 */
  readonly maxItems?: number | undefined;
  /**
   * Upstream calls of one document at once. Callers take turns for the upstream client's slots
   * (REST v2's 16), so one caller's queue never stands before another caller's call. @default 8
   */
  readonly maxUpstreamInFlight?: number | undefined;
  /**
   * Pass-through mode: keys RunPod may refuse (401) per client address per `intervalMs`; past it,
   * that address gets 429 without anything sent upstream. `false`: no limit.
   * @default 10 per 600000 ms
   */
  readonly refusedKeys?: false | { readonly requests: number; readonly intervalMs: number } | undefined;
}

type Window = false | { readonly requests: number; readonly intervalMs: number };

export interface ResolvedLimits {
  readonly maxDepth: number;
  readonly maxAliases: number;
  readonly maxTokens: number;
  readonly maxFragments: number;
  readonly maxSpreadsPerSelection: number;
  readonly maxBodyBytes: number;
  readonly maxInFlight: number;
  readonly queueWaitMs: number;
  readonly maxQueued: number;
  readonly deadlineMs: number;
  readonly pacingWaitMs: number;
  readonly maxUpstreamCalls: number;
  readonly maxPages: number;
  readonly maxItems: number;
  readonly maxUpstreamInFlight: number;
  readonly rate: Window;
  readonly refusedKeys: Window;
}

/** The defaults, in one place: the README's table of limits gives the same figures. */
export const DEFAULT_LIMITS = {
  maxDepth: 10,
  maxAliases: 30,
  // graphql-armor's default: the costliest document under the old 5,000 took 0.2–0.56 s of CPU.
  maxTokens: 1_000,
  maxFragments: 50,
  maxSpreadsPerSelection: 10,
  maxBodyBytes: 102_400,
  maxInFlight: 4,
  // 16 documents at once from one CI token, at 4 in flight, wait their turn rather than meet 429s.
  queueWaitMs: 10_000,
  maxQueued: 64,
  deadlineMs: 30_000,
  pacingWaitMs: 2_000,
  // One read token's `{ myself { pods } }` over a list with a fresh cursor on every page made
  // 2,548–4,773 calls before its 504, and 10,000 (the pager's own cap) at the default deadline.
  maxUpstreamCalls: 1_000,
  maxPages: 200,
  maxItems: 50_000,
  maxUpstreamInFlight: 8,
  rate: { requests: 300, intervalMs: 60_000 },
  refusedKeys: { requests: 10, intervalMs: 600_000 },
} as const;

const positiveInteger = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;

function windowOf(name: 'rate' | 'refusedKeys', value: Window | undefined): Window {
  const window = value ?? DEFAULT_LIMITS[name];
  if (window !== false && (!positiveInteger(window?.requests) || !positiveInteger(window.intervalMs))) {
    throw new ValidationError(`limits.${name}`, 'must be false or { requests, intervalMs } with integers above 0');
  }
  return window;
}

export function resolveLimits(limits: GatewayLimits = {}): ResolvedLimits {
  const counts = ['maxDepth', 'maxAliases', 'maxTokens', 'maxFragments', 'maxSpreadsPerSelection', 'maxBodyBytes', 'maxInFlight', 'maxQueued', 'deadlineMs', 'maxUpstreamCalls', 'maxPages', 'maxItems', 'maxUpstreamInFlight'] as const;
  for (const field of counts) {
    if (limits[field] != null && !positiveInteger(limits[field])) throw new ValidationError(`limits.${field}`, 'must be an integer above 0');
  }
  for (const field of ['pacingWaitMs', 'queueWaitMs'] as const) {
    if (limits[field] != null && !(Number.isSafeInteger(limits[field]) && limits[field] >= 0)) throw new ValidationError(`limits.${field}`, 'must be an integer ≥ 0');
  }
  const pick = <K extends (typeof counts)[number] | 'pacingWaitMs' | 'queueWaitMs'>(field: K): number => limits[field] ?? DEFAULT_LIMITS[field];
  return {
    maxDepth: pick('maxDepth'),
    maxAliases: pick('maxAliases'),
    maxTokens: pick('maxTokens'),
    maxFragments: pick('maxFragments'),
    maxSpreadsPerSelection: pick('maxSpreadsPerSelection'),
    maxBodyBytes: pick('maxBodyBytes'),
    maxInFlight: pick('maxInFlight'),
    queueWaitMs: pick('queueWaitMs'),
    maxQueued: pick('maxQueued'),
    deadlineMs: pick('deadlineMs'),
    pacingWaitMs: pick('pacingWaitMs'),
    maxUpstreamCalls: pick('maxUpstreamCalls'),
    maxPages: pick('maxPages'),
    maxItems: pick('maxItems'),
    maxUpstreamInFlight: pick('maxUpstreamInFlight'),
    rate: windowOf('rate', limits.rate),
    refusedKeys: windowOf('refusedKeys', limits.refusedKeys),
  };
}

/** What a selection set asks for, fragments expanded: its deepest nesting and its aliases. */
interface Shape {
  readonly depth: number;
  readonly aliases: number;
}

/**
 * Refuses a document with more fragments than `maxFragments`, and an operation deeper than
 * `maxDepth`, with more than `maxAliases` aliases, or with more than `maxSpreadsPerSelection` spreads
 * in one selection set. Aliases are counted through every spread, as graphql-armor counts them: a
 * fragment of 10 aliases spread 3 times is 30. Each fragment is measured once (its shape is kept),
 * so the walk is linear in the document however its fragments nest; a fragment that spreads itself
 * is left to validation, which refuses it.
 */
export function checkShape(document: DocumentNode, operation: OperationDefinitionNode, limits: ResolvedLimits): void {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  if (fragments.size > limits.maxFragments) throw new Refusal(400, `the document has more than ${limits.maxFragments} fragments, the gateway's limit`, 'FRAGMENT_LIMIT');
  const measured = new Map<string, Shape>();
  const measuring = new Set<string>();
  // Counts saturate just past the limit: a fragment spread through 20 levels of doubling is
  // refused, never counted into the billions.
  const cap = (aliases: number) => Math.min(aliases, limits.maxAliases + 1);
  const measure = (set: SelectionSetNode): Shape => {
    let depth = 0;
    let aliases = 0;
    let spreads = 0;
    for (const selection of set.selections) {
      let inner: Shape | undefined;
      if (selection.kind === Kind.FIELD) {
        if (selection.alias) aliases++;
        if (selection.selectionSet) {
          const below = measure(selection.selectionSet);
          inner = { depth: below.depth + 1, aliases: below.aliases };
        } else depth = Math.max(depth, 1);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        inner = measure(selection.selectionSet);
      } else {
        if (++spreads > limits.maxSpreadsPerSelection) throw new Refusal(400, `a selection spreads more than ${limits.maxSpreadsPerSelection} fragments, the gateway's limit`, 'SPREAD_LIMIT');
        inner = fragmentShape(selection.name.value);
      }
      if (inner) {
        depth = Math.max(depth, inner.depth);
        aliases = cap(aliases + inner.aliases);
      }
    }
    return { depth: Math.max(depth, 1), aliases: cap(aliases) };
  };
  const fragmentShape = (name: string): Shape | undefined => {
    const known = measured.get(name);
    if (known) return known;
    const fragment = fragments.get(name);
    if (!fragment || measuring.has(name)) return undefined;
    measuring.add(name);
    const shape = measure(fragment.selectionSet);
    measuring.delete(name);
    measured.set(name, shape);
    return shape;
  };
  const shape = measure(operation.selectionSet);
  if (shape.aliases > limits.maxAliases) throw new Refusal(400, `the operation has more than ${limits.maxAliases} aliases, the gateway's limit`, 'ALIAS_LIMIT');
  if (shape.depth > limits.maxDepth) throw new Refusal(400, `the operation is nested deeper than ${limits.maxDepth} levels, the gateway's limit`, 'DEPTH_LIMIT');
}
