import { ServerError, TransportUnsupportedError, ValidationError } from '../errors.js';
import { createRestCatalogApi } from '../rest/catalog.js';
import type { GraphQLCallOptions, RunpodGraphQL } from '../graphql/graphql-client.js';
import type { RestRequester } from '../rest/rest-request.js';
import type { TransportChoice } from '../transport/transport-choice.js';
import { tagTransport, transportOf } from '../transport/transport-tag.js';
import { checkInteger, checkNumber } from '../validation.js';
import { listOverGraphql } from './graphql-path.js';
import type { RestPathKit } from './rest-path.js';
import type { GpuOffer, GpuType, GpuTypesApi, GpuTypesListInput, StockStatus } from './types.js';

export type { GpuOffer, GpuOffersInput, GpuType, GpuTypesApi, GpuTypesListInput, StockStatus } from './types.js';

const STOCKED: ReadonlySet<string> = new Set(['High', 'Medium', 'Low']);

/** The REST v2 mappers, loaded on first use so the start-up bundle does not carry them. */
export const loadRestPath = () => import('./rest-path.js');

/** What the lazily loaded REST path needs at run time (it imports types only). */
export function restPathKit(rest: RestRequester): RestPathKit {
  return {
    catalog: createRestCatalogApi(rest),
    wrongShape: (call, options, expected, body): ServerError => rest.core.wrongShape(rest.http(call, options), expected, body),
    ValidationError,
    TransportUnsupportedError,
  };
}

/**
 * `rp.gpuTypes` above both APIs: GraphQL while it works, REST v2 (`/v2/catalog/gpus`) after its
 * retirement or with `podsTransport: 'rest'`, as `choice` says. Same calls, same result types.
 */
export function createGpuTypesApi(graphql: RunpodGraphQL, rest: RestRequester, choice: TransportChoice): GpuTypesApi {
  async function list(input: GpuTypesListInput = {}, options?: GraphQLCallOptions, operation = 'list'): Promise<GpuType[]> {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new ValidationError('input', 'must be an object of filters or unset');
    const gpuCount = input.gpuCount ?? 1;
    checkInteger('gpuCount', gpuCount, 1);
    return choice.run('gpuTypes', operation, {
      graphql: async () => tagEach(await listOverGraphql(graphql, input, gpuCount, options), 'graphql'),
      rest: async () => tagEach(await (await loadRestPath()).listOverRest(restPathKit(rest), input, gpuCount, options), 'rest'),
    });
  }

  return {
    list: (input, options) => list(input, options),
    async offers(input = {}, options) {
      if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new ValidationError('input', 'must be an object of filters or unset');
      const gpuCount = input.gpuCount ?? 1;
      checkInteger('gpuCount', gpuCount, 1);
      checkNumber('minMemoryInGb', input.minMemoryInGb, 0, Number.MAX_SAFE_INTEGER);
      checkNumber('maxPricePerHour', input.maxPricePerHour, 0, Number.MAX_SAFE_INTEGER);
      if (input.secureCloud !== undefined && typeof input.secureCloud !== 'boolean') {
        throw new ValidationError('secureCloud', 'must be true, false or unset');
      }
      const types = await list({ gpuCount, ...(input.secureCloud !== undefined && { secureCloud: input.secureCloud }) }, options, 'offers');
      const path = transportOf(types);
      const cloud = input.secureCloud === undefined ? 'ALL' : input.secureCloud ? 'SECURE' : 'COMMUNITY';
      const offers: GpuOffer[] = [];
      for (const type of types) {
        const price = type.lowestPrice;
        const stock = price?.stockStatus;
        if (!type.id || price?.uninterruptablePrice == null || !stock || !STOCKED.has(stock)) continue;
        const counts = (price.availableGpuCounts ?? []).filter((n): n is number => n !== null);
        // Over REST v2 `availableGpuCounts` is null (no per-count stock): the catalog's stock was
        // already read for `gpuCount` GPUs, so the count check is skipped rather than failed.
        if (price.availableGpuCounts && !counts.includes(gpuCount)) continue;
        if (input.secureCloud === true && type.secureCloud === false) continue;
        if (input.secureCloud === false && type.communityCloud === false) continue;
        if (input.minMemoryInGb !== undefined && (type.memoryInGb ?? 0) < input.minMemoryInGb) continue;
        const pricePerHour = Math.round(price.uninterruptablePrice * gpuCount * 10_000) / 10_000;
        if (input.maxPricePerHour !== undefined && pricePerHour > input.maxPricePerHour) continue;
        const offer: GpuOffer = {
          gpuTypeId: type.id,
          displayName: type.displayName ?? type.id,
          memoryInGb: type.memoryInGb,
          gpuCount,
          pricePerGpuHour: price.uninterruptablePrice,
          pricePerHour,
          stockStatus: stock as StockStatus,
          availableGpuCounts: counts,
          cloud,
        };
        offers.push(path ? tagTransport(offer, path) : offer);
      }
      const sorted = offers.sort((a, b) => a.pricePerHour - b.pricePerHour || a.gpuTypeId.localeCompare(b.gpuTypeId));
      return path ? tagTransport(sorted, path) : sorted;
    },
  };
}

function tagEach(types: GpuType[], path: 'graphql' | 'rest'): GpuType[] {
  for (const type of types) tagTransport(type, path);
  return tagTransport(types, path);
}
