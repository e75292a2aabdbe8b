// The account's documents run through the client's own in-process executor (rp.graphql.execute on
// REST v2), with each REST read it makes recorded, so a test can count them.
import type { ExecutionResult } from 'graphql';
import type { RunpodClient } from '../../src/index.js';

/** Runs `query` in process over `rp.rest`; `reads` lists each REST v2 request the document made, as the route (`GET /pods`). */
export async function runAccountDocument(rp: RunpodClient, query: string, variables?: Record<string, unknown>): Promise<ExecutionResult & { reads: string[] }> {
  const reads: string[] = [];
  const result = await rp.graphql.execute(query, variables, { onResponse: (info) => reads.push(String(info.operation)) });
  return { ...result, reads };
}
