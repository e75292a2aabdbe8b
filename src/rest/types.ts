// Readable names for the REST v2 types generated from the contract (src/rest/__generated__/rest-v2.ts).
import type { components, operations } from './__generated__/rest-v2.js';

type S = components['schemas'];
type Query<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;
/** The contract gives these keys defaults, so a caller may leave them out. */
type WithDefaults<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

export type Pod = S['Pod'];
export type PodStatus = S['PodStatus'];
export type PodAction = S['PodAction'];
export type PodRuntime = S['PodRuntime'];
export type Cloud = S['Cloud'];
export type Mounts = S['Mounts'];
export type LogSource = S['LogSource'];
export type CreatePodInput = WithDefaults<Omit<S['CreatePodRequest'], 'gpu'>, 'cloud' | 'globalNetworking' | 'startJupyter' | 'startSsh'> & {
  gpu?: WithDefaults<S['CreateGpuConfig'], 'count'>;
};
export type UpdatePodInput = S['UpdatePodRequest'];
/** The query of `GET /pods` but its page options (`cursor`, `limit`), which the pager's `PageOptions` carry. */
export type PodListQuery = Omit<Query<'listPods'>, 'cursor' | 'limit'>;

export type Endpoint = S['Endpoint'];
export type EndpointType = S['EndpointType'];
export type EndpointScaling = S['EndpointScaling'];
export type Worker = S['Worker'];
export type WorkerStatus = S['WorkerStatus'];
export type Release = S['Release'];
export type Build = S['Build'];
export type BuildState = S['BuildState'];
export type CreateEndpointInput = WithDefaults<Omit<S['CreateEndpointRequest'], 'gpu' | 'workers'>, 'flashboot' | 'timeout'> & {
  gpu?: WithDefaults<S['CreateEndpointGpuConfig'], 'count'>;
  workers?: Partial<S['EndpointWorkers']>;
};
export type UpdateEndpointInput = Omit<S['UpdateEndpointRequest'], 'gpu'> & { gpu?: WithDefaults<S['UpdateEndpointGpuConfig'], 'count'> };

export type Template = S['Template'];
export type TemplateCategory = S['TemplateCategory'];
export type CreateTemplateInput = WithDefaults<S['CreateTemplateRequest'], 'category' | 'public' | 'serverless' | 'startJupyter' | 'startSsh'>;
export type UpdateTemplateInput = S['UpdateTemplateRequest'];
export type PublicTemplateQuery = Query<'listPublicTemplates'>;

export type NetworkVolume = S['NetworkVolume'];
export type VolumeType = S['VolumeType'];
export type CreateNetworkVolumeInput = S['CreateNetworkVolumeRequest'];
export type UpdateNetworkVolumeInput = S['UpdateNetworkVolumeRequest'];

export type Registry = S['Registry'];
export type CreateRegistryInput = S['CreateRegistryRequest'];
export type EcrDelegation = S['EcrDelegation'];
export type CreateDelegationInput = S['CreateDelegationRequest'];

export type Cluster = S['Cluster'];
export type ClusterType = S['ClusterType'];
export type CreateClusterInput = WithDefaults<S['CreateClusterRequest'], 'startJupyter' | 'startSsh'>;
export type UpdateClusterInput = S['UpdateClusterRequest'];

export type SshKeys = S['SshKeys'];

export type GpuType = S['GpuType'];
export type CpuType = S['CpuType'];
export type DataCenter = S['DataCenter'];
export type AvailabilityLevel = S['AvailabilityLevel'];
export type GpuCatalogQuery = Query<'listGpuTypes'>;
export type CpuCatalogQuery = Query<'listCpuTypes'>;
export type DataCenterQuery = Query<'listDataCenters'>;
export type DataCenterGetQuery = Query<'getDataCenter'>;

export type BillingBucketSize = S['BillingBucketSize'];
export type BillingQuery = Query<'listBilling'>;
export type PodBillingQuery = Query<'listPodBilling'>;
export type ServerlessBillingQuery = Query<'listServerlessBilling'>;
export type EndpointBillingQuery = Query<'listEndpointBilling'>;
export type NetworkVolumeBillingQuery = Query<'listNetworkVolumeBilling'>;
export type ClusterBillingQuery = Query<'listClusterBilling'>;
export type ListBillingResponse = S['ListBillingResponse'];
export type ListPodBillingResponse = S['ListPodBillingResponse'];
export type ListServerlessBillingResponse = S['ListServerlessBillingResponse'];
export type ListEndpointBillingResponse = S['ListEndpointBillingResponse'];
export type ListNetworkVolumeBillingResponse = S['ListNetworkVolumeBillingResponse'];
export type ListClusterBillingResponse = S['ListClusterBillingResponse'];

/** An RFC 9457 problem body, as REST v2 sends its errors. */
export type ProblemBody = S['ErrorResponse'];
export type { components as RestV2Components, operations as RestV2Operations, paths as RestV2Paths } from './__generated__/rest-v2.js';
