// The field map, whole: each module owns its types and its share of the root types (Query and
// Mutation are assembled here from every module's part, so no module edits another's rows).
import { accountDerivations, accountMutationFields, accountQueryFields, accountTypes } from './account.js';
import { catalogDerivations, catalogQueryFields, catalogTypes } from './catalog.js';
import { clusterDerivations, clusterTypes } from './clusters.js';
import { endpointMutationFields, endpointTypes } from './endpoints.js';
import { networkVolumeMutationFields, networkVolumeTypes } from './network-volumes.js';
import { podDerivations, podMutationFields, podQueryFields, podTypes } from './pod.js';
import { registryAuthMutationFields, registryAuthTypes } from './registry-auths.js';
import { templateMutationFields, templateQueryFields, templateTypes } from './templates.js';
import type { Derivations, FieldEntry, FieldMap, FieldScope, TypeMap } from './types.js';

export * from './types.js';

export const FIELD_MAP: FieldMap = {
  Query: {
    rest: null,
    scope: 'read',
    fields: { ...podQueryFields, ...catalogQueryFields, ...accountQueryFields, ...templateQueryFields },
  },
  Mutation: {
    rest: null,
    scope: 'write',
    fields: { ...podMutationFields, ...accountMutationFields, ...templateMutationFields, ...endpointMutationFields, ...networkVolumeMutationFields, ...registryAuthMutationFields },
  },
  ...podTypes,
  ...catalogTypes,
  ...accountTypes,
  ...templateTypes,
  ...endpointTypes,
  ...networkVolumeTypes,
  ...registryAuthTypes,
  ...clusterTypes,
};

/** Every named derivation (`Type.field` → how it is derived); each module exports its own. */
export const DERIVATIONS: Derivations = { ...podDerivations, ...catalogDerivations, ...accountDerivations, ...clusterDerivations };

/** The entry of `Type.field`, or undefined when the map does not list it (no REST v2 source). */
export function fieldEntry(type: string, field: string): FieldEntry | undefined {
  const map: TypeMap | undefined = FIELD_MAP[type];
  return map && Object.hasOwn(map.fields, field) ? map.fields[field] : undefined;
}

/** The scope that may read `Type.field` (a field the map does not list needs `read`). */
export function fieldScope(type: string, field: string): FieldScope {
  const map = FIELD_MAP[type];
  return fieldEntry(type, field)?.scope ?? map?.scope ?? 'read';
}
