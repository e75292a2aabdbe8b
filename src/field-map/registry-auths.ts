// ContainerRegistryAuth and its mutations. The parent object is REST v2's `Registry`.
import { call, holding, decisive, path, type FieldEntry, type FieldMap } from './types.js';

export const registryAuthMutationFields: Readonly<Record<string, FieldEntry>> = {
  // Sent once (no marker: a registry has no env); the password is scrubbed like the key.
  saveRegistryAuth: holding('ContainerRegistryAuth', call(['POST /v2/registries'])),
  updateRegistryAuth: decisive(
    'REST v2 has no update route for registry credentials: run deleteRegistryAuth, then saveRegistryAuth (a new id: point templates that use the old one at it)',
    'write',
  ),
  deleteRegistryAuth: call(['DELETE /v2/registries/{id}']),
};

export const registryAuthTypes: FieldMap = {
  ContainerRegistryAuth: {
    rest: 'Registry',
    scope: 'read',
    fields: {
      id: path('id'),
      name: path('name'),
      userId: decisive('REST v2 registry credentials do not name their owner'),
      // The stored credential: REST v2 never returns it, and only a write token may ask.
      registryAuth: decisive('REST v2 never returns registry credentials once saved', 'write'),
    },
  },
};
