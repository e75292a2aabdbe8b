// One table, read by the field map (GpuAvailability.stockStatus) and rp.gpuTypes' REST path
// (src/gpu-types/rest-path.ts): a module of its own, so the REST path loads it without the map.
import type { AvailabilityLevel } from '../rest/types.js';

/** GraphQL's `stockStatus` spelling of REST v2's availability levels. */
export const STOCK_STATUS: Readonly<Record<AvailabilityLevel, string>> = { NONE: 'None', LOW: 'Low', MEDIUM: 'Medium', HIGH: 'High' };
