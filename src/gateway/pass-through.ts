// Pass-through mode: each caller's own RunPod key is used upstream. What a caller sends must never
// enter state other callers share: its key is checked for shape before any client is built, kept
// out of the process-wide redaction index, and scrubbed from that caller's answer only.
import { createRunpodClient, type RunpodClient } from '../client.js';
import { KEY_NOT_INDEXED } from '../transport/http-core.js';
import type { RunpodClientOptions } from '../transport/options.js';
import { SecretScope } from '../transport/redact.js';
import { scrubberOf, withDocument, type Scrub } from './scrub.js';
import { Refusal } from './protocol.js';

/** Pass-through clients kept, one per caller key, so each caller keeps its pacing. */
const MAX_PASS_THROUGH_CLIENTS = 256;
/**
 * How long a key RunPod accepted is scrubbed from every pass-through caller's answers after its
 * last accepted use: an upstream that echoed caller A's key into caller B's data must not show it
 * to B. Bounded too: only the keys of the clients kept ({@link MAX_PASS_THROUGH_CLIENTS}).
 */
export const ACCEPTED_KEY_MS = 15 * 60_000;

/**
 * What a RunPod key can look like: `rpa_` and 40-odd upper-case letters and digits today, 32 or
 * more letters and digits for older keys. Anything with spaces, quotes or other punctuation, or
 * shorter than 20 characters, cannot be one, and is refused before it reaches anything.
 */
const KEY_SHAPE = /^[A-Za-z0-9_-]{20,512}$/;

/** Refuses (401) a pass-through key that cannot be a RunPod key, without echoing it. */
export function checkPassThroughKey(key: string): void {
  if (!KEY_SHAPE.test(key)) {
    throw new Refusal(401, 'the API key is not well-formed: a RunPod key is 20 or more letters, digits, _ and -', 'UNAUTHENTICATED', { 'www-authenticate': 'Bearer error="invalid_token"' });
  }
}

/** One caller key's client, and the scrubber for that caller's answers. */
export interface PassThroughEntry {
  readonly client: RunpodClient;
  /** The caller's own key and every other key RunPod accepted lately, in one pass. */
  readonly scrub: Scrub;
}

/**
 * The clients of pass-through callers, by key, the most recently used kept. Only keys RunPod has
 * accepted join the scrubber every caller's answer shares (a key a caller merely sent changes
 * nobody else's answer); each leaves it {@link ACCEPTED_KEY_MS} after its last accepted use, or
 * when its client is dropped.
 */
export function createPassThroughPool(clientOptions: RunpodClientOptions, now: () => number = () => performance.now()) {
  const entries = new Map<string, PassThroughEntry>();
  const accepted = new SecretScope();
  /** Accepted keys, the least lately accepted first, with when each expires. */
  const acceptedUntil = new Map<string, number>();
  const forget = (key: string) => {
    if (acceptedUntil.delete(key)) accepted.remove(key);
  };
  const sweep = () => {
    const at = now();
    for (const [key, until] of acceptedUntil) {
      if (until > at) break;
      forget(key);
    }
  };
  return {
    /** The entry for `key` (already checked with {@link checkPassThroughKey}), made on first use. */
    get(key: string): PassThroughEntry {
      sweep();
      let entry = entries.get(key);
      if (entry) entries.delete(key);
      else {
        const options = { ...clientOptions, apiKey: key, graphqlAuth: 'header', [KEY_NOT_INDEXED]: true } as RunpodClientOptions;
        entry = { client: createRunpodClient(options), scrub: withDocument(scrubberOf([key]), accepted) };
        if (entries.size >= MAX_PASS_THROUGH_CLIENTS) {
          const oldest = entries.keys().next().value!;
          entries.delete(oldest);
          forget(oldest);
        }
      }
      entries.set(key, entry);
      return entry;
    },
    /** RunPod accepted `key`: every pass-through caller's answer is scrubbed of it for a while. */
    accept(key: string): void {
      if (!entries.has(key)) return;
      if (acceptedUntil.has(key)) acceptedUntil.delete(key);
      else accepted.add(key);
      acceptedUntil.set(key, now() + ACCEPTED_KEY_MS);
    },
    /** Forgets `key`'s client (RunPod refused the key): a guess costs no memory once answered. */
    drop(key: string): void {
      entries.delete(key);
      forget(key);
    },
    /** Keys accepted and still scrubbed from every answer (for tests of the bound). */
    get acceptedKeys(): number {
      return acceptedUntil.size;
    },
  };
}
