// NetworkVolume and its mutations.
import type { FieldEntry, FieldMap } from './types.js';

export const networkVolumeMutationFields: Readonly<Record<string, FieldEntry>> = {};
export const networkVolumeTypes: FieldMap = {};
