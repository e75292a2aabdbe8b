import { checkInteger, requireId, requireObject } from '../validation.js';
import { crudResource, type CrudResource } from './crud-resource.js';
import type { RestRequester } from './rest-request.js';
import type { Endpoint, EndpointCreateInput, EndpointListQuery, EndpointUpdateInput } from './types.js';

export type RestEndpointsApi = CrudResource<Endpoint, EndpointCreateInput, EndpointUpdateInput, EndpointListQuery, EndpointListQuery>;

function checkScaling(body: Record<string, unknown>): void {
  checkInteger('body.gpuCount', body.gpuCount, 1);
  checkInteger('body.idleTimeout', body.idleTimeout, 1, 3600);
  checkInteger('body.scalerValue', body.scalerValue, 1);
  checkInteger('body.workersMin', body.workersMin, 0);
  checkInteger('body.workersMax', body.workersMax, 0);
  checkInteger('body.executionTimeoutMs', body.executionTimeoutMs, 1);
}

export function createRestEndpointsApi(rest: RestRequester): RestEndpointsApi {
  return crudResource(rest, {
    base: '/endpoints',
    idField: 'endpointId',
    validateCreate: (input) => {
      const body = requireObject('body', input);
      requireId('body.templateId', body.templateId);
      checkScaling(body);
    },
    validateUpdate: (input) => checkScaling(requireObject('body', input)),
    updateIdempotent: true,
  });
}
