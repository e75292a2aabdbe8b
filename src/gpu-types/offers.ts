import type { GpuOffer, GpuOffersInput, GpuType, StockStatus } from './types.js';

const STOCKED: ReadonlySet<string> = new Set(['High', 'Medium', 'Low']);

/** The in-stock offers among `types` that meet `input`, cheapest first. */
export function selectOffers(types: readonly GpuType[], input: GpuOffersInput, gpuCount: number): GpuOffer[] {
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
      // Unknown over REST v2: null, never [] (which would read as none in stock).
      availableGpuCounts: price.availableGpuCounts ? counts : null,
      cloud,
    };
    offers.push(offer);
  }
  return offers.sort((a, b) => a.pricePerHour - b.pricePerHour || a.gpuTypeId.localeCompare(b.gpuTypeId));
}
