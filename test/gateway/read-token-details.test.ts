// Issue 43, cause 5: what a caller may not read never reaches it through an error. RunPod's 4xx/5xx
// details can quote a pod's or a template's env; a `read` token's answer keeps the status and the
// code, and withholds the words.
import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/index.js';

const READ = 'gw-details-read-token-0123456789ab';
const WRITE = 'gw-details-write-token-0123456789a';
const ENV_VALUE = 'hf_env_value_quoted_by_runpod_0123';

/** A gateway whose upstream answers every call with `answer`, and how a token's pod read reads through it. */
function askingThrough(answer: () => Response): (token: string) => Promise<string> {
  const gateway = createGateway({
    tokens: `read:${READ},write:${WRITE}`,
    client: { apiKey: 'rpa_details_upstream_KEY_0123456789', restUrl: 'http://127.0.0.1:9/v2', maxRetries: 0, rateLimits: false, fetch: async () => answer() },
  });
  return (token) =>
    gateway.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query: '{ pod(input: { podId: "p1" }) { id name } }' }) })).then((r) => r.text());
}

describe("upstream error details and a read token's answer", () => {
  it('withholds RunPod’s words after the status from a read token, not from a write token', async () => {
    const ask = askingThrough(() => Response.json({ error: `pod p1 is broken: env HF_TOKEN=${ENV_VALUE}` }, { status: 400 }));
    const read = await ask(READ);
    expect(read).not.toContain(ENV_VALUE);
    expect(read).toContain('failed with HTTP 400');
    expect(read).toContain('withheld from a read token');
    expect(await ask(WRITE)).toContain('pod p1 is broken');
  });

  // A 422 is worded `refused by the server (HTTP 422): <detail>` by the core, not `failed with
  // HTTP 422`: its detail was kept for a read token until the one pattern covered both wordings.
  it('withholds the detail of a 422 (refused by the server) from a read token too', async () => {
    const ask = askingThrough(() => Response.json([{ path: ['podId'], message: `pod p1 cannot start: env HF_TOKEN=${ENV_VALUE}` }], { status: 422 }));
    const read = await ask(READ);
    expect(read).toContain('(HTTP 422)');
    expect(read).not.toContain(ENV_VALUE);
    expect(read).toContain('withheld from a read token');
    expect(await ask(WRITE)).toContain('cannot start');
  });
});
