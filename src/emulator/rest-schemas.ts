import { z } from 'zod';

// Request bodies of REST v1, as the platform's contract defines them: types, ranges and required
// fields. Unknown fields are dropped, as the real server ignores them.

const int = (min?: number, max?: number) => {
  let schema = z.number().int();
  if (min !== undefined) schema = schema.min(min);
  if (max !== undefined) schema = schema.max(max);
  return schema;
};
const strings = z.array(z.string());
const env = z.record(z.string(), z.string());
const port = z.string().regex(/^\d{1,5}\/(http|tcp)$/, 'must look like 8888/http or 22/tcp');
const ports = z.array(port);
const priority = z.enum(['availability', 'custom']);
const cuda = z.array(z.string());

export const podCreateSchema = z.object({
  name: z.string().optional(),
  imageName: z.string().optional(),
  templateId: z.string().optional(),
  gpuTypeIds: strings.optional(),
  gpuTypePriority: priority.optional(),
  gpuCount: int(1).optional(),
  cloudType: z.enum(['SECURE', 'COMMUNITY']).optional(),
  computeType: z.enum(['GPU', 'CPU']).optional(),
  containerDiskInGb: int(0).nullable().optional(),
  volumeInGb: int(0).nullable().optional(),
  volumeMountPath: z.string().optional(),
  containerRegistryAuthId: z.string().optional(),
  countryCodes: strings.optional(),
  cpuFlavorIds: strings.optional(),
  cpuFlavorPriority: priority.optional(),
  dataCenterIds: strings.optional(),
  dataCenterPriority: priority.optional(),
  dockerEntrypoint: strings.optional(),
  dockerStartCmd: strings.optional(),
  env: env.optional(),
  globalNetworking: z.boolean().optional(),
  interruptible: z.boolean().optional(),
  locked: z.boolean().optional(),
  minDiskBandwidthMBps: z.number().optional(),
  minDownloadMbps: z.number().optional(),
  minRAMPerGPU: int().optional(),
  minUploadMbps: z.number().optional(),
  minVCPUPerGPU: int().optional(),
  networkVolumeId: z.string().optional(),
  ports: ports.optional(),
  supportPublicIp: z.boolean().optional(),
  allowedCudaVersions: cuda.optional(),
  vcpuCount: int().optional(),
});

export const podUpdateSchema = z.object({
  name: z.string().optional(),
  imageName: z.string().optional(),
  containerDiskInGb: int(0).nullable().optional(),
  volumeInGb: int(0).nullable().optional(),
  volumeMountPath: z.string().optional(),
  containerRegistryAuthId: z.string().optional(),
  dockerEntrypoint: strings.optional(),
  dockerStartCmd: strings.optional(),
  env: env.optional(),
  globalNetworking: z.boolean().optional(),
  locked: z.boolean().optional(),
  ports: ports.optional(),
});

export const networkVolumeCreateSchema = z.object({ name: z.string(), size: int(0, 4000), dataCenterId: z.string() });
export const networkVolumeUpdateSchema = z.object({ name: z.string().optional(), size: int(0, 4000).optional() });

const templateFields = {
  containerDiskInGb: int(0).optional(),
  containerRegistryAuthId: z.string().optional(),
  dockerEntrypoint: strings.optional(),
  dockerStartCmd: strings.optional(),
  env: env.optional(),
  isPublic: z.boolean().optional(),
  ports: ports.optional(),
  readme: z.string().optional(),
  volumeInGb: int(0).optional(),
  volumeMountPath: z.string().optional(),
};
export const templateCreateSchema = z.object({
  name: z.string(),
  imageName: z.string(),
  category: z.enum(['NVIDIA', 'AMD', 'CPU']).optional(),
  isServerless: z.boolean().optional(),
  ...templateFields,
});
export const templateUpdateSchema = z.object({ name: z.string().optional(), imageName: z.string().optional(), ...templateFields });

const endpointFields = {
  name: z.string().optional(),
  allowedCudaVersions: cuda.optional(),
  minCudaVersion: z.string().optional(),
  cpuFlavorIds: strings.optional(),
  dataCenterIds: strings.optional(),
  executionTimeoutMs: int(1).optional(),
  flashboot: z.boolean().optional(),
  gpuCount: int(1).optional(),
  gpuTypeIds: strings.optional(),
  idleTimeout: int(1, 3600).optional(),
  networkVolumeId: z.string().optional(),
  networkVolumeIds: strings.optional(),
  scalerType: z.enum(['QUEUE_DELAY', 'REQUEST_COUNT']).optional(),
  scalerValue: int(1).optional(),
  vcpuCount: int().optional(),
  workersMax: int(0).optional(),
  workersMin: int(0).optional(),
};
export const endpointCreateSchema = z.object({ templateId: z.string(), computeType: z.enum(['GPU', 'CPU']).optional(), ...endpointFields });
export const endpointUpdateSchema = z.object({ templateId: z.string().optional(), ...endpointFields });

export const registryAuthCreateSchema = z.object({ name: z.string(), username: z.string(), password: z.string() });

export const jobBodySchema = z.object({
  input: z.unknown().refine((v) => v !== undefined, 'input is required'),
  webhook: z.string().url().optional(),
  policy: z.object({ executionTimeout: int(1).optional(), lowPriority: z.boolean().optional(), ttl: int(1).optional() }).optional(),
  s3Config: z.object({ accessId: z.string(), accessSecret: z.string(), bucketName: z.string(), endpointUrl: z.string() }).optional(),
});

/** The first problem as `path: message`, for the `{error}` body. */
export function describeIssues(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid body';
  const path = issue.path.length > 0 ? issue.path.join('.') : 'body';
  return `${path}: ${issue.message}`;
}
