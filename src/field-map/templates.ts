// PodTemplate and its mutations.
import type { FieldEntry, FieldMap } from './types.js';

export const templateQueryFields: Readonly<Record<string, FieldEntry>> = {};
export const templateMutationFields: Readonly<Record<string, FieldEntry>> = {};
export const templateTypes: FieldMap = {};
