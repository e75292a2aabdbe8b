import { ValidationError } from '../errors.js';
import { GpuTypeCatalogDocument } from '../graphql/__generated__/operations.js';
import { createRestCatalogApi } from '../rest/catalog.js';
import type { GraphQLCallOptions, GraphQLRequester } from '../graphql/graphql-client.js';
import type { RestRequester } from '../rest/rest-request.js';
import type { TransportChoice } from '../transport/transport-choice.js';
import { tagTransport, transportOf } from '../transport/transport-tag.js';
import { checkInteger, checkNumber } from '../validation.js';
import { catalogEntries, createGpuTypeCatalog, type GpuTypeCatalog } from './catalog.js';
import { listOverGraphql } from './graphql-path.js';
import type { GpuType, GpuTypesApi, GpuTypesListInput } from './types.js';

export type { GpuOffer, GpuOffersInput, GpuType, GpuTypesApi, GpuTypesListInput, StockStatus } from './types.js';

/** The REST v2 mappers, loaded on first use so the start-up bundle does not carry them. */
export const loadRestPath = () => import('./rest-path.js');

/**
 * The catalog deploy checks GPU type ids against, read once per client over the current path:
 * GraphQL's `GpuTypeCatalog`, or `GET /v2/catalog/gpus` once REST v2 is in use.
 */
export function createDeployCatalog(graphql: GraphQLRequester, rest: RestRequester, choice: TransportChoice): GpuTypeCatalog {
  const read = () =>
    choice.run('pods', 'deploy', {
      graphql: async () => catalogEntries((await graphql.request(GpuTypeCatalogDocument))?.gpuTypes),
      rest: async () => catalogEntries(await createRestCatalogApi(rest).gpus(), 'name'),
    });
  return createGpuTypeCatalog(read, 'deploy', 'gpuTypes.list()');
}

/**
 * `rp.gpuTypes` above both APIs: GraphQL while it works, REST v2 (`/v2/catalog/gpus`) after its
 * retirement or with `podsTransport: 'rest'`, as `choice` says. Same calls, same result types.
 */
export function createGpuTypesApi(graphql: GraphQLRequester, rest: RestRequester, choice: TransportChoice): GpuTypesApi {
  async function list(input: GpuTypesListInput = {}, options?: GraphQLCallOptions, operation = 'list'): Promise<GpuType[]> {
    const gpuCount = gpuCountOf(input);
    return choice.run('gpuTypes', operation, {
      graphql: async () => tagEach(await listOverGraphql(graphql, input, gpuCount, options), 'graphql'),
      rest: async () => {
        const path = await loadRestPath();
        return tagEach(await path.listOverRest({ rest, catalog: createRestCatalogApi(rest) }, input, gpuCount, options), 'rest');
      },
    });
  }

  return {
    list: (input, options) => list(input, options),
    async offers(input = {}, options) {
      const gpuCount = gpuCountOf(input);
      checkNumber('minMemoryInGb', input.minMemoryInGb, 0, Number.MAX_SAFE_INTEGER);
      checkNumber('maxPricePerHour', input.maxPricePerHour, 0, Number.MAX_SAFE_INTEGER);
      if (input.secureCloud !== undefined && typeof input.secureCloud !== 'boolean') {
        throw new ValidationError('secureCloud', 'must be true, false or unset');
      }
      const types = await list({ gpuCount, ...(input.secureCloud !== undefined && { secureCloud: input.secureCloud }) }, options, 'offers');
      const path = transportOf(types);
      // The selection itself loads with the first call (no imports of its own, so no shared chunk).
      const offers = (await import('./offers.js')).selectOffers(types, input, gpuCount);
      return path ? tagEach(offers, path) : offers;
    },
  };
}

/** The filters' GPU count (1 when unset), once the filters are an object. */
function gpuCountOf(input: { gpuCount?: number | null | undefined }): number {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new ValidationError('input', 'must be an object of filters or unset');
  const gpuCount = input.gpuCount ?? 1;
  checkInteger('gpuCount', gpuCount, 1);
  return gpuCount;
}

/** Tags the list and each of its items with the path that produced them. */
function tagEach<T>(items: T[], path: 'graphql' | 'rest'): T[] {
  for (const item of items) tagTransport(item, path);
  return tagTransport(items, path);
}
