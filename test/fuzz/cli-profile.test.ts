import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/errors.js';
import { keyFromProfile, MAX_PROFILE_BYTES } from '../../src/cli/profile.js';
import { counted, params } from './harness.js';

// ~/.runpod/config.toml holds a key: whatever the file holds (text, bytes, oversize), reading it
// answers a key, nothing, or a UsageError, and no message quotes the file (a secret in it stays there).
const SECRET = 'rpa_FUZZ_PROFILE_SECRET_7f3c';
let home = '';
const savedHome = process.env.HOME;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'runpod-gql-fuzz-profile-'));
  mkdirSync(join(home, '.runpod'));
  process.env.HOME = home;
});
afterAll(() => {
  process.env.HOME = savedHome;
  rmSync(home, { recursive: true, force: true });
});

const contents = fc.oneof(
  fc.string({ maxLength: 200 }).map((s) => `${s}${SECRET}${s}`),
  fc.constantFrom('[default]\napi_key = "', 'apiKey = ', '[', '"""', '\u0000', '= =').chain((head) => fc.string({ maxLength: 50 }).map((tail) => `${head}${SECRET}${tail}`)),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.concat([Buffer.from(bytes), Buffer.from(SECRET)])),
  fc.integer({ min: MAX_PROFILE_BYTES - 2, max: MAX_PROFILE_BYTES + 2 }).map((size) => `#${SECRET}${'x'.repeat(Math.max(0, size - SECRET.length - 2))}\n`),
);

describe('the profile file, whatever it holds', () => {
  it('property: a key, nothing, or a UsageError that never quotes the file', async () => {
    await fc.assert(
      fc.asyncProperty(
        contents,
        fc.constantFrom(undefined, 'default', 'work'),
        counted('cli-profile', async (content, profile) => {
          writeFileSync(join(home, '.runpod', 'config.toml'), content);
          try {
            const found = await keyFromProfile(profile);
            if (found) expect(typeof found.key).toBe('string');
          } catch (err) {
            expect(err).toBeInstanceOf(UsageError);
            expect((err as Error).message).not.toContain(SECRET);
            expect((err as Error).message).toContain('~/.runpod/config.toml');
          }
        }),
      ),
      params(200),
    );
  });
});
