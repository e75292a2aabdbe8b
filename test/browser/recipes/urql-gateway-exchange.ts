// The urql recipe: an exchange that runs each query and mutation with the page fetcher (persisted
// ids, the gateway token, the package's error classes, its 429/503 retries) instead of urql's
// fetchExchange. Copy it into your app as it is.
import { makeErrorResult, makeResult, type Exchange, type Operation } from '@urql/core';
import type { GatewayFetcher } from 'runpod-gql/graphql/fetch';
import { filter, fromPromise, merge, mergeMap, onEnd, pipe, takeUntil } from 'wonka';

const runs = (op: Operation) => op.kind === 'query' || op.kind === 'mutation';

export const gatewayExchange =
  (execute: GatewayFetcher): Exchange =>
  ({ forward }) =>
  (operations$) => {
    const executed$ = pipe(
      operations$,
      filter(runs),
      mergeMap((op) => {
        const controller = new AbortController();
        const teardown$ = pipe(operations$, filter((o) => o.kind === 'teardown' && o.key === op.key));
        // op.query is the generated DocumentNode: its `__meta__.hash` goes as the documentId.
        const answer = execute(op.query as Parameters<GatewayFetcher>[0], op.variables as never, { signal: controller.signal }).then(
          (data) => makeResult(op, { data }),
          (error: Error) => makeErrorResult(op, error),
        );
        return pipe(fromPromise(answer), takeUntil(teardown$), onEnd(() => controller.abort()));
      }),
    );
    return merge([executed$, forward(pipe(operations$, filter((op) => !runs(op))))]);
  };
