// NetworkVolume and its mutations. The parent object is REST v2's `NetworkVolume`.
import { call, holding, decisive, path, type FieldEntry, type FieldMap } from './types.js';

export const networkVolumeMutationFields: Readonly<Record<string, FieldEntry>> = {
  createNetworkVolume: holding('NetworkVolume', call(['POST /v2/network-volumes'])),
  updateNetworkVolume: holding('NetworkVolume', call(['PATCH /v2/network-volumes/{id}'])),
  deleteNetworkVolume: call(['DELETE /v2/network-volumes/{id}']),
};

export const networkVolumeTypes: FieldMap = {
  NetworkVolume: {
    rest: 'NetworkVolume',
    scope: 'read',
    fields: {
      id: path('id'),
      name: path('name'),
      size: path('size'),
      dataCenterId: path('dataCenter'),
      dataCenter: holding('DataCenter', call(['GET /v2/catalog/datacenters/{id}'])),
      storageClusterId: decisive(),
      storageType: decisive(),
      flashEnvironmentId: decisive(),
    },
  },
};
