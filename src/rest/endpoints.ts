import type { CallOptions } from '../transport/options.js';
import { pagedCrud, pagedSubList, subList, type PagedCrudApi } from './crud.js';
import { BUILDS_PAGE_LIMIT, type PageOptions, type PagedList } from './pager.js';
import { logStream, type LogLine, type LogOptions } from './logs.js';
import { idSegment, type RestRequester } from './rest-request.js';
import type { Build, CreateEndpointInput, Endpoint, Release, UpdateEndpointInput, Worker } from './types.js';

/** Serverless endpoints (the contract's `/serverless` routes). */
export interface RestEndpointsApi extends PagedCrudApi<Endpoint, CreateEndpointInput, UpdateEndpointInput> {
  workers(id: string, options?: CallOptions): Promise<Worker[]>;
  /** The endpoint's releases, newest first: every one when awaited, or page by page (see `list`). */
  releases(id: string, options?: PageOptions): PagedList<Release>;
  /**
   * The endpoint's image builds (from its linked repository), newest first: every one when awaited,
   * or page by page (see `list`); a page holds at most 100 (`limit` 1–100, default 100).
   */
  builds(id: string, options?: PageOptions): PagedList<Build>;
  /** One build, with its `status` (PENDING, BUILDING, UPLOADING, TESTING, then COMPLETED, FAILED, CANCELLED or TEST_FAILED). */
  build(id: string, buildId: string, options?: CallOptions): Promise<Build>;
  /** A worker's log lines as Server-Sent Events; leave the loop to end the request. */
  workerLogs(id: string, workerId: string, options?: LogOptions): AsyncIterable<LogLine>;
}

export function createRestEndpointsApi(rest: RestRequester): RestEndpointsApi {
  const one = (id: unknown) => `/serverless/${idSegment('id', id)}`;
  return {
    ...pagedCrud<Endpoint, CreateEndpointInput, UpdateEndpointInput>(rest, { base: '/serverless', listKey: 'endpoints', createSchema: 'CreateEndpointRequest', updateSchema: 'UpdateEndpointRequest', marked: true }),
    workers: subList<Worker>(rest, '/serverless', 'workers'),
    releases: pagedSubList<Release>(rest, '/serverless', 'releases'),
    builds: pagedSubList<Build>(rest, '/serverless', 'builds', BUILDS_PAGE_LIMIT),
    build: async (id, buildId, options) =>
      rest.object<Build>({ method: 'GET', path: `${one(id)}/builds/${idSegment('buildId', buildId)}`, route: 'GET /serverless/{id}/builds/{buildId}', idempotent: true }, options),
    workerLogs: (id, workerId, options) =>
      logStream(rest, { method: 'GET', path: `${one(id)}/workers/${idSegment('workerId', workerId)}/logs`, route: 'GET /serverless/{id}/workers/{workerId}/logs' }, options),
  };
}
