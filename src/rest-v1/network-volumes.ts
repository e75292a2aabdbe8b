import { checkInteger, requireObject, requireString } from '../validation.js';
import { crudResource, type CrudResource } from './crud-resource.js';
import type { RestRequester } from './rest-request.js';
import type { NetworkVolume, NetworkVolumeCreateInput, NetworkVolumeUpdateInput } from './types.js';

export type RestNetworkVolumesApi = CrudResource<NetworkVolume, NetworkVolumeCreateInput, NetworkVolumeUpdateInput, undefined, undefined>;

export const MAX_NETWORK_VOLUME_GB = 4000;

export function createRestNetworkVolumesApi(rest: RestRequester): RestNetworkVolumesApi {
  return crudResource(rest, {
    base: '/networkvolumes',
    idField: 'networkVolumeId',
    validateCreate: (input) => {
      const body = requireObject('body', input);
      requireString('body.name', body.name);
      checkInteger('body.size', body.size, 0, MAX_NETWORK_VOLUME_GB, false);
      requireString('body.dataCenterId', body.dataCenterId);
    },
    validateUpdate: (input) => {
      const body = requireObject('body', input);
      if (body.name !== undefined) requireString('body.name', body.name);
      checkInteger('body.size', body.size, 0, MAX_NETWORK_VOLUME_GB);
    },
    updateIdempotent: true,
  });
}
