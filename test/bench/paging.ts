// Issue 32's pagination row, in its own process: walking every pod of the emulator's account in
// pages, with `rp.rest.pods.list()` and with the same walk written by hand with `fetch` (one GET per
// page, following `nextCursor`). Rounds alternate which goes first. Prints one JSON line: per page
// size, the requests each made and the wall and CPU time of each walk.
type Api = typeof import('../../src/index.js');

const { options, pods, rounds, limits, dist } = JSON.parse(process.argv[2]!) as {
  options: { apiKey: string; restUrl: string } & Record<string, unknown>;
  pods: number;
  rounds: number;
  limits: number[];
  dist: string;
};
const { createRunpodClient } = (await import(dist)) as Api;

let requests = 0;
const counting = (input: string | URL | Request, init?: RequestInit) => {
  requests++;
  return fetch(input, init);
};
const rp = createRunpodClient({ ...options, fetch: counting });

/** The walk by hand: what a careful caller writes without a pager. */
async function byHand(limit: number): Promise<unknown[]> {
  const items: unknown[] = [];
  let cursor: string | null = null;
  do {
    const url = `${options.restUrl}/pods?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await counting(url, { headers: { authorization: `Bearer ${options.apiKey}` } });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const page = (await res.json()) as { pods: unknown[]; pagination: { nextCursor: string | null; hasNextPage: boolean } };
    items.push(...page.pods);
    cursor = page.pagination.hasNextPage ? page.pagination.nextCursor : null;
  } while (cursor);
  return items;
}

const walks: Record<string, (limit: number) => Promise<unknown[]>> = {
  'rest.pods.list()': (limit) => rp.rest.pods.list(undefined, { limit }),
  'by hand with fetch': byHand,
};

async function timed(name: string, limit: number) {
  requests = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const items = await walks[name]!(limit);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  if (items.length !== pods) throw new Error(`${name} with limit ${limit} listed ${items.length} of ${pods} pods`);
  return { requests, wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

// Warm both paths (JIT, the first connection) before anything is measured.
for (const name of Object.keys(walks)) await timed(name, limits[0]!);

const samples: Record<string, Record<string, { requests: number[]; wallMs: number[]; cpuMs: number[] }>> = {};
for (const limit of limits) {
  const entry: Record<string, { requests: number[]; wallMs: number[]; cpuMs: number[] }> = {};
  for (const name of Object.keys(walks)) entry[name] = { requests: [], wallMs: [], cpuMs: [] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? Object.keys(walks) : Object.keys(walks).reverse();
    for (const name of order) {
      const t = await timed(name, limit);
      entry[name]!.requests.push(t.requests);
      entry[name]!.wallMs.push(t.wallMs);
      entry[name]!.cpuMs.push(t.cpuMs);
    }
  }
  samples[String(limit)] = entry;
}
process.stdout.write(`${JSON.stringify({ samples })}\n`);
