// The page script of cors-page.test.ts, bundled for the browser: the package's client in a page on
// one origin, calling a gateway on another, as a developer's Vite page would.
import { createRunpodClient } from '../../src/index.js';

interface Outcome {
  ok: boolean;
  offers?: number;
  name?: string;
  message?: string;
}

/** One GraphQL read through the gateway at `graphqlUrl`, with the client's `headers` option. */
async function attempt(graphqlUrl: string, token: string, headers?: Record<string, string>): Promise<Outcome> {
  const rp = createRunpodClient({ graphqlUrl, gatewayToken: token, headers, graphqlTransport: 'graphql' });
  try {
    const data = (await rp.graphql.request('query Offers { gpuTypes { id } }')) as { gpuTypes: unknown[] };
    return { ok: true, offers: data.gpuTypes.length };
  } catch (err) {
    return { ok: false, name: (err as Error).name, message: (err as Error).message };
  }
}

(globalThis as { attempt?: typeof attempt }).attempt = attempt;
document.getElementById('status')!.textContent = 'ready';
