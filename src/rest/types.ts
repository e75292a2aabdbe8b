// Readable names for the REST v2 types generated from the contract (src/rest/__generated__/rest-v2.ts).
// Every schema's name, and `<OperationId>Query` for each operation's query, are generated
// (src/rest/__generated__/names.ts); this file adds only the input types a caller writes (with the
// contract's defaults optional) and the names kept from before (they shadow a generated name).
import type { components } from './__generated__/rest-v2.js';
import type { GetDataCenterQuery, ListBillingQuery, ListClusterBillingQuery, ListCpuTypesQuery, ListDataCentersQuery, ListEndpointBillingQuery, ListGpuTypesQuery, ListNetworkVolumeBillingQuery, ListPodBillingQuery, ListPodsQuery, ListPublicTemplatesQuery, ListServerlessBillingQuery } from './__generated__/names.js';

export type * from './__generated__/names.js';

type S = components['schemas'];
/** The contract gives these keys defaults, so a caller may leave them out. */
type WithDefaults<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

export type CreatePodInput = WithDefaults<Omit<S['CreatePodRequest'], 'gpu'>, 'cloud' | 'globalNetworking' | 'startJupyter' | 'startSsh'> & {
  gpu?: WithDefaults<S['CreateGpuConfig'], 'count'>;
};
export type UpdatePodInput = S['UpdatePodRequest'];
/** `POST /pods/{id}/exec`: an argv run without a shell (1 to 256 strings), at most `timeoutSeconds` (1 to 25, default 20), in `cwd`. */
export type PodExecInput = WithDefaults<S['ExecPodRequest'], 'timeoutSeconds'>;
/** The query of `GET /pods` but its page options (`cursor`, `limit`), which the pager's `PageOptions` carry. */
export type PodListQuery = Omit<ListPodsQuery, 'cursor' | 'limit'>;

export type CreateEndpointInput = WithDefaults<Omit<S['CreateEndpointRequest'], 'gpu' | 'workers'>, 'flashboot' | 'timeout'> & {
  gpu?: WithDefaults<S['CreateEndpointGpuConfig'], 'count'>;
  workers?: Partial<S['EndpointWorkers']>;
};
export type UpdateEndpointInput = Omit<S['UpdateEndpointRequest'], 'gpu'> & { gpu?: WithDefaults<S['UpdateEndpointGpuConfig'], 'count'> };

export type CreateTemplateInput = WithDefaults<S['CreateTemplateRequest'], 'category' | 'public' | 'serverless' | 'startJupyter' | 'startSsh'>;
export type UpdateTemplateInput = S['UpdateTemplateRequest'];
export type PublicTemplateQuery = ListPublicTemplatesQuery;

export type CreateNetworkVolumeInput = S['CreateNetworkVolumeRequest'];
export type UpdateNetworkVolumeInput = S['UpdateNetworkVolumeRequest'];

export type CreateRegistryInput = S['CreateRegistryRequest'];
export type CreateDelegationInput = S['CreateDelegationRequest'];

export type CreateClusterInput = WithDefaults<S['CreateClusterRequest'], 'startJupyter' | 'startSsh'>;
export type UpdateClusterInput = S['UpdateClusterRequest'];

export type GpuCatalogQuery = ListGpuTypesQuery;
export type CpuCatalogQuery = ListCpuTypesQuery;
export type DataCenterQuery = ListDataCentersQuery;
export type DataCenterGetQuery = GetDataCenterQuery;

export type BillingQuery = ListBillingQuery;
export type PodBillingQuery = ListPodBillingQuery;
export type ServerlessBillingQuery = ListServerlessBillingQuery;
export type EndpointBillingQuery = ListEndpointBillingQuery;
export type NetworkVolumeBillingQuery = ListNetworkVolumeBillingQuery;
export type ClusterBillingQuery = ListClusterBillingQuery;

/** An RFC 9457 problem body, as REST v2 sends its errors. */
export type ProblemBody = S['ErrorResponse'];
export type { components as RestV2Components, operations as RestV2Operations, paths as RestV2Paths } from './__generated__/rest-v2.js';
