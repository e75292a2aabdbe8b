// The recipe page: TanStack Query and urql over `runpod-gql/graphql/fetch`, built with Vite by
// recipes.test.ts and run in Chromium against a `--persisted` gateway on the page's own origin.
// `app-gql/*` is the app's own codegen output: the client preset with persisted documents, as the
// README's config writes it (`readme`: TypedDocumentString) and in the preset's default mode
// (`documentNode`), which urql takes.
import { QueryClient } from '@tanstack/query-core';
import { Client, cacheExchange } from '@urql/core';
import { AppGpuNamesDocument as AppGpuNamesNode } from 'app-gql/documentNode/graphql';
import { AppGpuNamesDocument, type AppGpuNamesQuery } from 'app-gql/readme/graphql';
import { createGatewayFetcher } from 'runpod-gql/graphql/fetch';
import { gatewayExchange } from './urql-gateway-exchange';

const token = new URLSearchParams(location.search).get('token') ?? undefined;
const execute = createGatewayFetcher({ url: '/graphql', token });

async function withTanStack(): Promise<string> {
  // The fetcher retries reads on 429 and 503 after Retry-After; TanStack's own retries stay off.
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const data: AppGpuNamesQuery = await queryClient.fetchQuery({
    queryKey: ['gpuNames'],
    queryFn: ({ signal }) => execute(AppGpuNamesDocument, {}, { signal }),
  });
  return `${data.gpuTypes?.length ?? 0} offers`;
}

async function withUrql(): Promise<string> {
  const client = new Client({ url: '/graphql', exchanges: [cacheExchange, gatewayExchange(execute)] });
  const result = await client.query(AppGpuNamesNode, {}).toPromise();
  if (result.error) throw result.error;
  return `${result.data?.gpuTypes?.length ?? 0} gpus`;
}

const show = (id: string, text: string) => (document.getElementById(id)!.textContent = text);
Promise.all([withTanStack().then((t) => show('tanstack', t)), withUrql().then((t) => show('urql', t))]).then(
  () => show('status', 'done'),
  (err: Error) => show('status', `error: ${err.name}: ${err.message}`),
);
