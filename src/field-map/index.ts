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

/**
 * A field whose name says it holds a key, a token, a password, a secret or an env (`Endpoint.aiKey`,
 * `Machine.defaultEnv`, `EnvironmentVariable.key`): only `write` reads it, whatever the map says.
 */
export const SECRET_BEARING_NAME = /key|token|password|secret|env/i;

/**
 * The scope that may read `Type.field`. Denied by default: a type or field the map does not list
 * needs `write` (the map is where a field is judged safe to read), and so does a secret-bearing
 * name ({@link SECRET_BEARING_NAME}). Introspection (`__Schema`, `__Type`, …) is a `catalog` read.
 */
export function fieldScope(type: string, field: string): FieldScope {
  if (type.startsWith('__')) return 'catalog';
  if (SECRET_BEARING_NAME.test(field)) return 'write';
  const entry = fieldEntry(type, field);
  if (!entry) return 'write';
  return entry.scope ?? FIELD_MAP[type]!.scope;
}
