// The account over REST v2: `myself` (an empty object whose fields read their own routes, each once
// per document), its pods, SSH keys and secrets, and updateUserSettings { pubKey }.
import { ValidationError } from '../../../errors.js';
import type { Pod, Secret } from '../../../rest/types.js';
import type { ResolverContext, ResolverTable } from '../resolver-types.js';
import { inputOf, required } from './inputs.js';

const SSH_KEYS = 'GET /v2/account/ssh-keys';

/** The account's pods as REST v2 objects (every page), read once per document. */
export const listPods = (ctx: ResolverContext): Promise<Pod[]> => ctx.once('GET /v2/pods', async () => ctx.rest.pods.list(undefined, ctx.options));

const sshKeys = (ctx: ResolverContext): Promise<string[]> => ctx.once(SSH_KEYS, () => ctx.rest.sshKeys.list(ctx.options));

/** GraphQL's pubKey holds every key, one a line (what runpodctl appends to); REST v2 lists them. */
export const pubKeyText = (keys: readonly string[]): string | null => (keys.length ? keys.join('\n') : null);
export const pubKeyList = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);

export const accountResolversOwn: ResolverTable = {
  Query: {
    myself: () => ({}),
  },
  User: {
    pods: (_args, ctx) => listPods(ctx),
    pubKey: async (_args, ctx) => pubKeyText(await sshKeys(ctx)),
    secrets: (_args, ctx): Promise<Secret[]> => ctx.once('GET /v2/account/secrets', () => ctx.rest.secrets.list(undefined, ctx.options)),
  },
  Mutation: {
    // rp.rest.secrets registers the value as a secret before the body leaves, and sends a create once.
    secretCreate: ({ input }, ctx) => {
      const fields = inputOf(input);
      const why = 'REST v2 makes a secret only with a name and a value';
      const description = typeof fields.description === 'string' ? fields.description : undefined;
      return ctx.rest.secrets.create({ name: required<string>(fields, 'name', 'string', why), value: required<string>(fields, 'value', 'string', why), ...(description !== undefined && { description }) }, ctx.options);
    },
    secretValueUpdate: ({ input }, ctx) => {
      const fields = inputOf(input);
      return ctx.rest.secrets.update(String(fields.id), { value: required<string>(fields, 'value', 'string', 'a new value is required') }, ctx.options);
    },
    secretDescriptionUpdate: ({ input }, ctx) => {
      const fields = inputOf(input);
      return ctx.rest.secrets.update(String(fields.id), { description: typeof fields.description === 'string' ? fields.description : '' }, ctx.options);
    },
    secretDelete: async ({ id }, ctx) => {
      await ctx.rest.secrets.delete(String(id), ctx.options);
      return null;
    },
    // REST v2 replaces the whole list, as GraphQL's pubKey replaced the whole text. The answer is the
    // account, whose pubKey is the list the PUT answered (no second read).
    updateUserSettings: async ({ input }, ctx) => {
      const text = required<string>(inputOf(input), 'pubKey', 'string', 'REST v2 replaces the SSH keys with the ones given');
      let stored: string[];
      try {
        stored = await ctx.rest.sshKeys.replace(pubKeyList(text), ctx.options);
      } catch (err) {
        // The contract's key rule, checked before sending, names REST's body.keys.N: name the input.
        if (err instanceof ValidationError && err.status === undefined && err.field.startsWith('body.keys')) {
          throw new ValidationError('input.pubKey', 'each line must be one SSH public key ("ssh-ed25519 AAAA… comment"); nothing was sent', { cause: err });
        }
        throw err;
      }
      await ctx.once(SSH_KEYS, async () => stored);
      return {};
    },
  },
};
