// Pass-through mode: each caller's own RunPod key is used upstream. What a caller sends must never
// enter state other callers share: its key is checked for shape before any client is built, kept
// out of the process-wide redaction index, and scrubbed from that caller's answer only.
import { createRunpodClient, type RunpodClient } from '../client.js';
import { KEY_NOT_INDEXED } from '../transport/http-core.js';
import type { RunpodClientOptions } from '../transport/options.js';
import { scrubberOf, type Scrub } from './scrub.js';
import { Refusal } from './protocol.js';

/** Pass-through clients kept, one per caller key, so each caller keeps its pacing. */
const MAX_PASS_THROUGH_CLIENTS = 256;

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
  readonly scrub: Scrub;
}

/**
 * The clients of pass-through callers, by key, the most recently used kept. `ownSecrets` (the
 * operator's catalog key) are scrubbed from every caller's answer besides the caller's own key.
 */
export function createPassThroughPool(clientOptions: RunpodClientOptions, ownSecrets: readonly string[] = []) {
  const entries = new Map<string, PassThroughEntry>();
  return {
    /** The entry for `key` (already checked with {@link checkPassThroughKey}), made on first use. */
    get(key: string): PassThroughEntry {
      let entry = entries.get(key);
      if (entry) entries.delete(key);
      else {
        const options = { ...clientOptions, apiKey: key, graphqlAuth: 'header', [KEY_NOT_INDEXED]: true } as RunpodClientOptions;
        entry = { client: createRunpodClient(options), scrub: scrubberOf([key, ...ownSecrets]) };
        if (entries.size >= MAX_PASS_THROUGH_CLIENTS) entries.delete(entries.keys().next().value!);
      }
      entries.set(key, entry);
      return entry;
    },
    /** Forgets `key`'s client (RunPod refused the key): a guess costs no memory once answered. */
    drop(key: string): void {
      entries.delete(key);
    },
  };
}
