import { pagedCrud, type PagedCrudApi } from './crud.js';
import type { RestRequester } from './rest-request.js';
import type { CreateTemplateInput, Template, UpdateTemplateInput } from './types.js';

export type RestTemplatesApi = PagedCrudApi<Template, CreateTemplateInput, UpdateTemplateInput>;

export function createRestTemplatesApi(rest: RestRequester): RestTemplatesApi {
  return pagedCrud(rest, { base: '/templates', listKey: 'templates', createSchema: 'CreateTemplateRequest', updateSchema: 'UpdateTemplateRequest', marked: true });
}
