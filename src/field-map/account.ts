// The account (User: `myself`), its lists and settings, and the root fields that read it.
import type { FieldEntry, FieldMap } from './types.js';

export const accountQueryFields: Readonly<Record<string, FieldEntry>> = {};
export const accountTypes: FieldMap = {};
