import type { ClientOptions } from 'openai';
import { describe, expectTypeOf, it } from 'vitest';
import { createRunpodClient, type OpenAICompatible } from '../../src/index.js';
import { createRunpodServerlessClient } from '../../src/serverless/index.js';

const rp = createRunpodClient({ apiKey: 'k' });

describe('endpoint(id).openai()', () => {
  it('is what the openai SDK constructor takes, from either client', () => {
    expectTypeOf(rp.endpoint('ep').openai()).toEqualTypeOf<OpenAICompatible>();
    expectTypeOf(rp.endpoint('ep').openai()).toExtend<ClientOptions>();
    expectTypeOf(createRunpodServerlessClient({ apiKey: 'k' }).endpoint('ep').openai({ timeoutMs: 1000 })).toExtend<ClientOptions>();
  });

  it('exposes no key, only read-only fields', () => {
    expectTypeOf<keyof OpenAICompatible>().toEqualTypeOf<'baseURL' | 'apiKey' | 'maxRetries' | 'fetch'>();
    expectTypeOf<OpenAICompatible['maxRetries']>().toEqualTypeOf<0>();
    // @ts-expect-error the options object is read-only
    rp.endpoint('ep').openai().apiKey = 'x';
    // @ts-expect-error only the helper's own options
    rp.endpoint('ep').openai({ signal: new AbortController().signal });
  });
});
