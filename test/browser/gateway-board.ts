// The page script of gateway-board.html, bundled for the browser by gateway-board.test.ts. A
// frontend as a developer would write it: the generated documents and types of `runpod-gql/graphql`
// (imported here from the source the entry exports), a gateway on the page's own origin, a read
// token, persisted documents by hash, and no RunPod key anywhere.
import { createRunpodClient } from '../../src/index.js';
import { GpuTypesDocument, type GpuTypesQuery, type GpuTypesQueryVariables } from '../../src/graphql/index.js';
import { PodNamesDocument, type PodNamesQuery } from './pod-names.js';

interface Persisted<TResult, TVariables> {
  toString(): string;
  /** The result type the document carries (codegen's TypedDocumentString). */
  __apiType?: (variables: TVariables) => TResult;
}

const token = new URLSearchParams(location.search).get('token') ?? '';

/** Runs a persisted document by its SHA-256 hash (Apollo's convention), typed by the document. */
async function runPersisted<TResult, TVariables>(document: Persisted<TResult, TVariables>, variables: TVariables): Promise<TResult> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(document.toString()));
  const sha256Hash = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash } }, variables }),
  });
  const body = (await response.json()) as { data?: TResult; errors?: Array<{ message: string }> };
  if (!response.ok || !body.data) throw new Error(body.errors?.map((e) => e.message).join('; ') ?? `HTTP ${response.status}`);
  return body.data;
}

function cell(row: HTMLTableRowElement, text: string): void {
  row.insertCell().textContent = text;
}

async function main(): Promise<void> {
  const status = document.getElementById('status')!;
  // The guard: a RunPod key in a page is refused, and the message points at the gateway.
  try {
    createRunpodClient({ apiKey: 'rpa_would_leak_0123456789' });
    document.getElementById('guard')!.textContent = 'no guard';
  } catch (err) {
    document.getElementById('guard')!.textContent = (err as Error).message;
  }
  // The client pointed at the gateway with a relative URL and the token (no key): its options are accepted.
  createRunpodClient({ graphqlUrl: '/graphql', gatewayToken: token });

  const variables: GpuTypesQueryVariables = { lowestPriceInput: { gpuCount: 1 } };
  const offers: GpuTypesQuery = await runPersisted(GpuTypesDocument, variables);
  // The app's own document: a read token never reads Pod.env, so a page selects what it shows.
  const mine: PodNamesQuery = await runPersisted(PodNamesDocument, {});
  const offerRows = document.querySelector('#offers tbody') as HTMLTableSectionElement;
  const inStock = (offers.gpuTypes ?? []).filter((t) => t?.lowestPrice?.uninterruptablePrice != null);
  for (const gpu of inStock) {
    const row = offerRows.insertRow();
    cell(row, gpu!.displayName ?? '');
    cell(row, `${gpu!.memoryInGb} GB`);
    cell(row, gpu!.lowestPrice!.uninterruptablePrice!.toFixed(2));
  }
  const podRows = document.querySelector('#pods tbody') as HTMLTableSectionElement;
  for (const pod of mine.myself?.pods ?? []) {
    const row = podRows.insertRow();
    cell(row, pod!.name);
    cell(row, pod!.desiredStatus);
  }
  status.textContent = `${inStock.length} offers, ${mine.myself?.pods?.length ?? 0} pods`;
}

main().catch((err: Error) => {
  document.getElementById('status')!.textContent = `error: ${err.message}`;
});
