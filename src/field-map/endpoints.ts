// Endpoint and its mutations.
import type { FieldEntry, FieldMap } from './types.js';

export const endpointMutationFields: Readonly<Record<string, FieldEntry>> = {};
export const endpointTypes: FieldMap = {};
