import { describe, expect, it } from 'vitest';
import { createRunpodClient } from '../../src/client.js';
import { ValidationError } from '../../src/errors.js';
import { createRunpodRestClient } from '../../src/rest/index.js';
import { createRunpodServerlessClient } from '../../src/serverless/index.js';
import type { RunpodClientOptions } from '../../src/transport/options.js';

const KEY = 'rpa_url_options_key_1234';

/** Malformed values every URL option refuses, and what the message says. */
const MALFORMED: Array<[string, unknown, RegExp]> = [
  ['no scheme, IP and port', '127.0.0.1:8787/graphql', /starting with http:\/\/ or https:\/\//],
  ['no scheme, host name and port (parses with the scheme "localhost:")', 'localhost:8787/graphql', /starting with http:\/\/ or https:\/\//],
  ['no scheme, host only', 'api.runpod.io/v2', /starting with http:\/\/ or https:\/\//],
  ['unparseable', 'http://[::1', /starting with http:\/\/ or https:\/\//],
  ['unparseable port', 'https://api.runpod.io:99999/v2', /starting with http:\/\/ or https:\/\//],
  ['empty', '', /starting with http:\/\/ or https:\/\//],
  ['ftp scheme', 'ftp://api.runpod.io/v2', /starting with http:\/\/ or https:\/\//],
  ['file scheme', 'file:///etc/passwd', /starting with http:\/\/ or https:\/\//],
  ['javascript scheme', 'javascript:alert(1)', /http/],
  ['credentials in the URL', 'https://user:secret@api.runpod.io/v2', /user name, password or #fragment/],
  ['a fragment', 'https://api.runpod.io/v2#x', /user name, password or #fragment/],
  ['a number', 8787, /starting with http:\/\/ or https:\/\/, got number/],
  ['an object', { href: 'https://api.runpod.io' }, /starting with http:\/\/ or https:\/\/, got object/],
];

const OPTIONS = ['graphqlUrl', 'restUrl', 'serverlessUrl', 'loadBalancedUrl'] as const;
const FACTORIES: Record<string, (options: RunpodClientOptions) => unknown> = {
  createRunpodClient,
  createRunpodRestClient,
  createRunpodServerlessClient,
};

function attempt(factory: (options: RunpodClientOptions) => unknown, options: RunpodClientOptions): { error: unknown; sent: number } {
  let sent = 0;
  try {
    factory({ apiKey: KEY, fetch: async () => (sent++, Response.json({})), ...options });
  } catch (error) {
    return { error, sent };
  }
  return { error: undefined, sent };
}

describe('URL options are checked like inputs, before anything is sent', () => {
  const table = OPTIONS.flatMap((option) =>
    MALFORMED.map(([label, value, message]) => {
      // The load-balanced template holds its placeholder, so each case tests the URL itself.
      const v = option === 'loadBalancedUrl' && typeof value === 'string' ? `${value}/{endpointId}` : value;
      return [option, label, v, message] as const;
    }),
  );

  it.each(table)('%s: %s is a ValidationError naming the option, 0 requests sent', (option, _label, value, message) => {
    for (const [name, factory] of Object.entries(FACTORIES)) {
      const { error, sent } = attempt(factory, { [option]: value });
      expect(error, name).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).field, name).toBe(option);
      expect((error as ValidationError).status, name).toBeUndefined();
      expect((error as ValidationError).message, name).toMatch(new RegExp(`^${option}: `));
      expect((error as ValidationError).message, name).toMatch(message);
      expect(sent, name).toBe(0);
    }
  });

  it('the message never echoes the value (a URL may carry a credential)', () => {
    for (const option of OPTIONS) {
      for (const value of ['rpa_SECRETKEY:rest', 'https://user:rpa_SECRETKEY@api.runpod.io', 'rpa_SECRETKEY.example/{endpointId}', 'ftp://rpa_SECRETKEY/{endpointId}']) {
        const { error } = attempt(createRunpodClient, { [option]: value });
        expect(error).toBeInstanceOf(ValidationError);
        expect(String((error as Error).message)).not.toContain('SECRETKEY');
      }
    }
  });

  it('loadBalancedUrl must contain {endpointId}', () => {
    const { error, sent } = attempt(createRunpodClient, { loadBalancedUrl: 'https://lb.example.com' });
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe('loadBalancedUrl');
    expect((error as ValidationError).message).toMatch(/must contain \{endpointId\}/);
    expect(sent).toBe(0);
  });

  it('good URLs, with and without a trailing slash, a port, a path or a query, are accepted', () => {
    const good: RunpodClientOptions[] = [
      { graphqlUrl: 'http://127.0.0.1:8787/graphql', restUrl: 'http://127.0.0.1:8787/v2/', serverlessUrl: 'https://api.runpod.ai/v2', loadBalancedUrl: 'https://{endpointId}.api.runpod.ai' },
      { graphqlUrl: 'HTTPS://API.RUNPOD.IO/graphql?x=1', restUrl: 'http://[::1]:8080/v2', loadBalancedUrl: 'http://127.0.0.1:8787/lb/{endpointId}' },
      { graphqlUrl: undefined, restUrl: undefined },
    ];
    for (const options of good) for (const factory of Object.values(FACTORIES)) expect(attempt(factory, options).error).toBeUndefined();
  });
});
