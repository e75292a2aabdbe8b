// ContainerRegistryAuth and its mutations.
import type { FieldEntry, FieldMap } from './types.js';

export const registryAuthMutationFields: Readonly<Record<string, FieldEntry>> = {};
export const registryAuthTypes: FieldMap = {};
