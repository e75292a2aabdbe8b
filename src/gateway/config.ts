// The gateway's one resolved configuration: every setting a stage reads, resolved once from the
// options (which the command line builds from its config file, then the environment, then its
// flags: node.ts). Stages read it through a holder (`GatewaySettings`), so a reload can replace
// what may change (tokens, persisted documents) between two requests, never during one.
import { ValidationError } from '../errors.js';
import type { GatewayOptions, GatewayUpstream } from './options.js';
import { resolveLimits, type ResolvedLimits } from './limits.js';
import type { PersistedDocuments } from './persisted.js';
import { tokenTable, type TokenEntry } from './tokens.js';

/** What the configuration is resolved from: the options of `createGateway` it reads. */
export type ConfigInput = Pick<GatewayOptions, 'upstream' | 'tokens' | 'allowAnonymous' | 'passThroughKeys' | 'persisted' | 'nullForNoSource' | 'limits'>;

/** The settings that may change while the gateway runs (a reload replaces them whole). */
export interface ReloadableConfig {
  /** Token → its scope, name and own limits. Empty in pass-through mode, and for an anonymous gateway. */
  readonly tokens: ReadonlyMap<string, TokenEntry>;
  /** Document id → text, or undefined: any text runs. */
  readonly persisted: Readonly<Record<string, string>> | undefined;
}

/** Every setting, resolved and checked. */
export interface GatewayConfig extends ReloadableConfig {
  readonly upstream: GatewayUpstream;
  readonly passThrough: boolean;
  /** True when no token is configured and anonymous callers are served. */
  readonly anonymous: boolean;
  readonly limits: ResolvedLimits;
  readonly nullForNoSource: boolean;
}

function envTokens(): string | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return proc?.env?.RUNPOD_GATEWAY_TOKENS || undefined;
}

/** The tokens and documents of `options`, checked (a ValidationError names the option). */
export function resolveReloadable(options: Pick<ConfigInput, 'tokens' | 'persisted' | 'passThroughKeys'>): ReloadableConfig {
  const tokenSource = options.tokens ?? envTokens();
  const tokens = options.passThroughKeys === true || tokenSource === undefined ? new Map<string, TokenEntry>() : tokenTable(tokenSource);
  return { tokens, persisted: options.persisted };
}

/** Resolves `options` into the gateway's configuration, refusing what would serve nobody safely. */
export function resolveGatewayConfig(options: ConfigInput): GatewayConfig {
  const upstream = options.upstream ?? 'rest';
  if (upstream !== 'auto' && upstream !== 'rest' && upstream !== 'graphql') throw new ValidationError('upstream', "must be 'auto', 'rest' or 'graphql'");
  const passThrough = options.passThroughKeys === true;
  const limits = resolveLimits(options.limits);
  const reloadable = resolveReloadable(options);
  const anonymous = !passThrough && reloadable.tokens.size === 0;
  if (anonymous && options.allowAnonymous !== true) {
    throw new ValidationError('tokens', 'no gateway token is configured: set RUNPOD_GATEWAY_TOKENS (read:TOKEN,write:TOKEN), or serve anonymous callers on loopback with --allow-anonymous');
  }
  return { ...reloadable, upstream, passThrough, anonymous, limits, nullForNoSource: options.nullForNoSource === true };
}

/**
 * The holder stages read the configuration through: `current` (and the persisted documents'
 * index built from it) are replaced together by a reload, between two requests' reads.
 */
export interface GatewaySettings {
  readonly current: GatewayConfig;
  /** The persisted documents, indexed by id and hash, or undefined: any text runs. */
  readonly persisted: PersistedDocuments | undefined;
}
