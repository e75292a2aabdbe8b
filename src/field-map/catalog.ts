// The GPU catalog (GpuType, LowestPrice), CPU types and data centres, and their root fields.
import type { FieldEntry, FieldMap } from './types.js';

export const catalogQueryFields: Readonly<Record<string, FieldEntry>> = {};
export const catalogTypes: FieldMap = {};
