// Issue 43, cause 7: a persisted manifest is checked at load. A key of 16 or 64 hex digits claims
// to be its text's id or SHA-256: one that is not is refused, so no entry keyed by another
// document's hash (or id) takes that document over; ids and hashes are looked up apart.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { loadPersisted } from '../../src/gateway/persisted.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const PODS = '{ myself { pods { id } } }';
const ENV = '{ myself { pods { id env } } }';

describe('persisted manifests, checked at load', () => {
  it("refuses an entry keyed by another document's hash (it would take that hash over)", async () => {
    const loaded = loadPersisted({ Pods: PODS, [sha(PODS)]: ENV });
    await expect(loaded.hashed).rejects.toBeInstanceOf(ValidationError);
    await expect(loaded.hashed).rejects.toThrow(/64 hex digits, so it must be its text's SHA-256/);
  });

  it("refuses a 16-hex key that is not its text's id, in any case", async () => {
    await expect(loadPersisted({ [sha(PODS).slice(0, 16)]: ENV }).hashed).rejects.toThrow(/16 hex digits/);
    await expect(loadPersisted({ [sha(PODS).slice(0, 16).toUpperCase()]: ENV }).hashed).rejects.toThrow(/16 hex digits/);
  });

  it('serves ids and hashes that match their texts, each looked up where it belongs', async () => {
    const id = sha(PODS).slice(0, 16);
    const loaded = loadPersisted({ [id.toUpperCase()]: PODS, Env: ENV, [sha(ENV)]: ENV });
    await loaded.hashed;
    expect(loaded.lookup(id)).toBe(PODS);
    expect(loaded.lookup(sha(PODS))).toBe(PODS);
    expect(loaded.lookup(sha(PODS).toUpperCase())).toBe(PODS);
    expect(loaded.lookup('Env')).toBe(ENV);
    expect(loaded.lookup(sha(ENV))).toBe(ENV);
    // A name is no hash, and a hash's prefix is no id unless the manifest says so.
    expect(loaded.lookup(sha(ENV).slice(0, 16))).toBeUndefined();
    expect(loaded.lookup('Pods')).toBeUndefined();
  });
});
