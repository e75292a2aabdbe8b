import type { CallOptions } from '../transport/options.js';
import { crud, subList, type CrudApi } from './crud.js';
import { logStream, type LogLine, type LogOptions } from './logs.js';
import { idSegment, type RestRequester } from './rest-request.js';
import type { CreateEndpointInput, Endpoint, Release, UpdateEndpointInput, Worker } from './types.js';

/** Serverless endpoints (the contract's `/serverless` routes). */
export interface RestEndpointsApi extends CrudApi<Endpoint, CreateEndpointInput, UpdateEndpointInput> {
  workers(id: string, options?: CallOptions): Promise<Worker[]>;
  releases(id: string, options?: CallOptions): Promise<Release[]>;
  /** A worker's log lines as Server-Sent Events; leave the loop to end the request. */
  workerLogs(id: string, workerId: string, options?: LogOptions): AsyncIterable<LogLine>;
}

export function createRestEndpointsApi(rest: RestRequester): RestEndpointsApi {
  const one = (id: unknown) => `/serverless/${idSegment('id', id)}`;
  return {
    ...crud<Endpoint, CreateEndpointInput, UpdateEndpointInput>(rest, { base: '/serverless', listKey: 'endpoints', createSchema: 'CreateEndpointRequest', updateSchema: 'UpdateEndpointRequest', marked: true }),
    workers: subList<Worker>(rest, '/serverless', 'workers'),
    releases: subList<Release>(rest, '/serverless', 'releases'),
    workerLogs: (id, workerId, options) =>
      logStream(rest, { method: 'GET', path: `${one(id)}/workers/${idSegment('workerId', workerId)}/logs`, route: 'GET /serverless/{id}/workers/{workerId}/logs' }, options),
  };
}
