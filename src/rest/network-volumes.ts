import { crud, type CrudApi } from './crud.js';
import type { RestRequester } from './rest-request.js';
import type { CreateNetworkVolumeInput, NetworkVolume, UpdateNetworkVolumeInput } from './types.js';

/** Network volumes: `size` 10–4096 GB, and an update may only grow it. */
export type RestNetworkVolumesApi = CrudApi<NetworkVolume, CreateNetworkVolumeInput, UpdateNetworkVolumeInput>;

export function createRestNetworkVolumesApi(rest: RestRequester): RestNetworkVolumesApi {
  return crud(rest, { base: '/network-volumes', listKey: 'networkVolumes', createSchema: 'CreateNetworkVolumeRequest', updateSchema: 'UpdateNetworkVolumeRequest' });
}
