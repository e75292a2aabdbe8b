// Pod and the types a pod answer holds (PodMachineInfo, PodRuntime, …), and the pod root fields.
import type { FieldEntry, FieldMap } from './types.js';

export const podQueryFields: Readonly<Record<string, FieldEntry>> = {};
export const podMutationFields: Readonly<Record<string, FieldEntry>> = {};
export const podTypes: FieldMap = {};
