// `runpod-gql gpus`: GPU offers in stock.
import type { CommandGroup } from '../program.js';
import { cloudOptions, gigabytes, gpuCount, price, transportOption } from '../options.js';
import { print, printTable } from '../output.js';
import { withClient } from '../session.js';

export const gpus: CommandGroup = (program) => {
  const [secure, community] = cloudOptions();
  program
    .command('gpus')
    .description('GPU offers in stock, cheapest first')
    .option('--count <n>', 'GPUs per pod', gpuCount, 1)
    .addOption(secure)
    .addOption(community)
    .option('--min-memory <gb>', 'minimum GPU memory (VRAM)', gigabytes)
    .option('--max-price <usd>', 'highest price per hour for all --count GPUs', price)
    .addOption(transportOption())
    .action(
      withClient(async ({ rp }, o) => {
        const offers = await rp.gpuTypes.offers({
          gpuCount: o.count as number,
          secureCloud: o.secure ? true : o.community ? false : undefined,
          minMemoryInGb: o.minMemory as number | undefined,
          maxPricePerHour: o.maxPrice as number | undefined,
        });
        print(o, offers, () =>
          printTable(offers.map((x) => ({ GPU: x.displayName, ID: x.gpuTypeId, MEMORY: `${x.memoryInGb ?? '?'} GB`, '$/HR': x.pricePerHour.toFixed(2), STOCK: x.stockStatus, AVAILABLE: x.availableGpuCounts?.join(',') ?? '?' }))),
        );
      }),
    );
};
