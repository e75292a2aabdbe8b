import { checkEnvMap, checkInteger, checkPortsArray, requireObject, requireString } from '../validation.js';
import { crudResource, type CrudResource } from './crud-resource.js';
import type { RestRequester } from './rest-request.js';
import type { Template, TemplateCreateInput, TemplateListQuery, TemplateUpdateInput } from './types.js';

export type RestTemplatesApi = CrudResource<Template, TemplateCreateInput, TemplateUpdateInput, TemplateListQuery, TemplateListQuery>;

function checkFields(body: Record<string, unknown>): void {
  checkEnvMap('body.env', body.env);
  checkPortsArray('body.ports', body.ports);
  checkInteger('body.containerDiskInGb', body.containerDiskInGb, 0);
  checkInteger('body.volumeInGb', body.volumeInGb, 0);
}

export function createRestTemplatesApi(rest: RestRequester): RestTemplatesApi {
  return crudResource(rest, {
    base: '/templates',
    idField: 'templateId',
    validateCreate: (input) => {
      const body = requireObject('body', input);
      requireString('body.name', body.name);
      requireString('body.imageName', body.imageName);
      checkFields(body);
    },
    validateUpdate: (input) => checkFields(requireObject('body', input)),
    updateIdempotent: true,
  });
}
