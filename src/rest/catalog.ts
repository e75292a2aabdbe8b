import type { CallOptions } from '../transport/options.js';
import { sharedReadsOf } from '../transport/shared-reads.js';
import { idSegment, type RestRequester } from './rest-request.js';
import type { CpuCatalogQuery, CpuType, DataCenter, DataCenterGetQuery, DataCenterQuery, GpuCatalogQuery, GpuType, PublicTemplateQuery, Template } from './types.js';

/**
 * GPU and CPU types with list prices, data centres and public templates. Stock comes only with
 * `include: ['AVAILABILITY']` and a `product`.
 */
export interface RestCatalogApi {
  gpus(query?: GpuCatalogQuery, options?: CallOptions): Promise<GpuType[]>;
  gpu(id: string, query?: GpuCatalogQuery, options?: CallOptions): Promise<GpuType>;
  cpus(query?: CpuCatalogQuery, options?: CallOptions): Promise<CpuType[]>;
  cpu(id: string, query?: CpuCatalogQuery, options?: CallOptions): Promise<CpuType>;
  dataCenters(query?: DataCenterQuery, options?: CallOptions): Promise<DataCenter[]>;
  dataCenter(id: string, query?: DataCenterGetQuery, options?: CallOptions): Promise<DataCenter>;
  templates(query?: PublicTemplateQuery, options?: CallOptions): Promise<Template[]>;
}

export function createRestCatalogApi(rest: RestRequester): RestCatalogApi {
  // The catalog is public: within one in-process document (ten aliased deploys), a read is made once.
  const shared = <T>(path: string, query: object | undefined, options: CallOptions | undefined, read: () => Promise<T>): Promise<T> =>
    sharedReadsOf(options)?.(path + JSON.stringify(query), read) ?? read();
  const list = <T>(path: string, key: string, query: object | undefined, options?: CallOptions) =>
    shared(path, query, options, () => rest.list<T>({ method: 'GET', path, route: `GET ${path}`, query, idempotent: true }, key, options));
  const one = async <T>(base: string, id: string, query: object | undefined, options?: CallOptions) =>
    shared(`${base}/${id}`, query, options, () => rest.object<T>({ method: 'GET', path: `${base}/${idSegment('id', id)}`, route: `GET ${base}/{id}`, query, idempotent: true }, options));
  return {
    gpus: (query, options) => list<GpuType>('/catalog/gpus', 'gpus', query, options),
    gpu: (id, query, options) => one<GpuType>('/catalog/gpus', id, query, options),
    cpus: (query, options) => list<CpuType>('/catalog/cpus', 'cpus', query, options),
    cpu: (id, query, options) => one<CpuType>('/catalog/cpus', id, query, options),
    dataCenters: (query, options) => list<DataCenter>('/catalog/datacenters', 'dataCenters', query, options),
    dataCenter: (id, query, options) => one<DataCenter>('/catalog/datacenters', id, query, options),
    templates: (query, options) => list<Template>('/catalog/templates', 'templates', query, options),
  };
}
