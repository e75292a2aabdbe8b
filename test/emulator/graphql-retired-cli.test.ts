import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// `runpod-gql emulator --graphql-retired`: GraphQL answers 410 Gone from the first request, as
// production will; REST v2 keeps working. Without the flag, the same emulator answers GraphQL.
const root = fileURLToPath(new URL('../../', import.meta.url));
let server: ChildProcessWithoutNullStreams | undefined;
afterEach(() => {
  server?.kill('SIGTERM');
  server = undefined;
});

async function start(args: string[]): Promise<{ graphqlUrl: string; restUrl: string; apiKey: string; graphqlRetired: boolean }> {
  server = spawn(process.execPath, ['dist/cli/main.js', 'emulator', '--port', '0', '--json', ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  const running = server;
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    running.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    running.on('exit', () => reject(new Error(`emulator exited: ${out}`)));
  });
  return JSON.parse(line);
}

const myself = (graphqlUrl: string, apiKey: string) =>
  fetch(graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` }, body: JSON.stringify({ query: '{ myself { id } }' }) });

describe('emulator --graphql-retired', () => {
  it('answers every GraphQL request 410 Gone, and REST v2 as before', async () => {
    const { graphqlUrl, restUrl, apiKey, graphqlRetired } = await start(['--graphql-retired']);
    expect(graphqlRetired).toBe(true);
    const gone = await myself(graphqlUrl, apiKey);
    expect(gone.status).toBe(410);
    expect(await gone.text()).toMatch(/retired/);
    const pods = await fetch(`${restUrl}/pods`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(pods.status).toBe(200);
  }, 30_000);

  it('without it, GraphQL answers', async () => {
    const { graphqlUrl, apiKey, graphqlRetired } = await start([]);
    expect(graphqlRetired).toBe(false);
    const res = await myself(graphqlUrl, apiKey);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { myself: { id: string } } }).data.myself.id).toEqual(expect.any(String));
  }, 30_000);
});
