// ContainerRegistryAuth and its mutations. The parent object is REST v2's `Registry`.
import { call, holding, decisive, path, type FieldEntry, type FieldMap } from './types.js';

export const registryAuthMutationFields: Readonly<Record<string, FieldEntry>> = {
  // Sent once (no marker: a registry has no env); the password is scrubbed like the key.
  saveRegistryAuth: holding('ContainerRegistryAuth', call(['POST /v2/registries'])),
  updateRegistryAuth: decisive('write'),
  deleteRegistryAuth: call(['DELETE /v2/registries/{id}']),
};

export const registryAuthTypes: FieldMap = {
  ContainerRegistryAuth: {
    rest: 'Registry',
    scope: 'read',
    fields: {
      id: path('id'),
      name: path('name'),
      userId: decisive(),
      // The stored credential: REST v2 never returns it, and only a write token may ask.
      registryAuth: decisive('write'),
    },
  },
};
