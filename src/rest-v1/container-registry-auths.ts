import { requireObject, requireString } from '../validation.js';
import { crudResource, type CrudResource } from './crud-resource.js';
import type { RestRequester } from './rest-request.js';
import type { ContainerRegistryAuth, ContainerRegistryAuthCreateInput } from './types.js';

/** Registry credentials for private images. There is no update route: delete and create again. */
export type RestContainerRegistryAuthsApi = Omit<CrudResource<ContainerRegistryAuth, ContainerRegistryAuthCreateInput, never, undefined, undefined>, 'update'>;

export function createRestContainerRegistryAuthsApi(rest: RestRequester): RestContainerRegistryAuthsApi {
  const { update: _noUpdateRoute, ...routes } = crudResource<ContainerRegistryAuth, ContainerRegistryAuthCreateInput, never, undefined, undefined>(rest, {
    base: '/containerregistryauth',
    idField: 'containerRegistryAuthId',
    validateCreate: (input) => {
      const body = requireObject('body', input);
      requireString('body.name', body.name);
      requireString('body.username', body.username);
      requireString('body.password', body.password);
    },
    updateIdempotent: true,
  });
  return routes;
}
