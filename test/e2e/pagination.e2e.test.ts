// Acceptance (issue 29): an account with 2,500 pods and 1,200 templates, over loopback against the
// emulator. Every list returns everything, streams it in pages, in ceil(n / limit) requests counted
// at the fetch seam, and an ambiguous create on that account is found by its marker on a late page.
import { beforeAll, describe, expect, it } from 'vitest';
import { CREATE_MARKER_ENV, createRunpodClient, type RunpodClient } from '../../src/index.js';
import { createRunpodRestClient } from '../../src/rest/index.js';
import { KEY_A, useEmulator } from './harness.js';

const PODS = 2_500;
const TEMPLATES = 1_200;

/** A fetch that counts, per `METHOD /path`, what the client sends and what is answered. */
function countingFetch(inner: typeof fetch = globalThis.fetch) {
  const sent = new Map<string, number>();
  const answered = new Map<string, number>();
  const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const key = `${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`;
    add(sent, key);
    const res = await inner(input, init);
    add(answered, key);
    return res;
  };
  return { fetch, count: (key: string) => sent.get(key) ?? 0, answered: (key: string) => answered.get(key) ?? 0, reset: () => (sent.clear(), answered.clear()) };
}

describe('pagination end to end: 2,500 pods and 1,200 templates', () => {
  const ctx = useEmulator({ restRateLimitPerMinute: 1_000_000 });
  const made = { pods: [] as string[], templates: [] as string[] };

  /** Creates straight on the emulator (in-process), so the client's counts stay its own. */
  async function seed(path: string, body: object): Promise<string> {
    const res = await ctx.emulator.fetch(
      new Request(`${ctx.emulator.clientOptions(KEY_A).restUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    );
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  }
  const seedPod = (name: string) => seed('/pods', { name, image: 'img:1', cpu: { id: 'cpu3c', vcpuCount: 2 } });

  beforeAll(async () => {
    for (let i = 0; i < PODS; i++) made.pods.push(await seedPod(`p${i}`));
    for (let i = 0; i < TEMPLATES; i++) made.templates.push(await seed('/templates', { name: `t${i}`, image: 'img:1' }));
  }, 300_000);

  const client = (fetch: typeof globalThis.fetch, extra: Parameters<typeof createRunpodClient>[0] = {}): RunpodClient =>
    createRunpodClient({ ...ctx.server.clientOptions(KEY_A), fetch, ...extra });

  it('list() returns every pod and template, in ceil(n / limit) requests', async () => {
    const seam = countingFetch();
    const rp = client(seam.fetch);
    const pods = await rp.rest.pods.list();
    expect(pods).toHaveLength(PODS);
    expect(pods.map((p) => p.id)).toEqual([...made.pods].reverse()); // newest first, each once
    expect(seam.count('GET /v2/pods')).toBe(Math.ceil(PODS / 1000));

    const templates = await rp.rest.templates.list();
    expect(new Set(templates.map((t) => t.id))).toEqual(new Set(made.templates));
    expect(seam.count('GET /v2/templates')).toBe(Math.ceil(TEMPLATES / 1000));

    seam.reset();
    expect(await rp.rest.pods.list(undefined, { limit: 300 })).toHaveLength(PODS);
    expect(seam.count('GET /v2/pods')).toBe(Math.ceil(PODS / 300));
    expect(await rp.rest.templates.list({ limit: 7 })).toHaveLength(TEMPLATES);
    expect(seam.count('GET /v2/templates')).toBe(Math.ceil(TEMPLATES / 7));
  }, 120_000);

  it('streaming yields every item, page by page, one request per page', async () => {
    const seam = countingFetch();
    const rest = createRunpodRestClient({ ...ctx.server.clientOptions(KEY_A), fetch: seam.fetch });
    const sizes: number[] = [];
    for await (const page of rest.pods.list(undefined, { limit: 600 }).pages()) {
      sizes.push(page.items.length);
      expect(seam.count('GET /v2/pods')).toBe(sizes.length);
    }
    expect(sizes).toEqual([600, 600, 600, 600, 100]);
    const ids = new Set<string>();
    for await (const template of rest.templates.list({ limit: 250 })) ids.add(template.id);
    expect(ids.size).toBe(TEMPLATES);
    expect(seam.count('GET /v2/templates')).toBe(Math.ceil(TEMPLATES / 250));
  }, 120_000);

  it('rp.pods.list() over REST v2 returns every pod too', async () => {
    const seam = countingFetch();
    const pods = await client(seam.fetch, { podsTransport: 'rest' }).pods.list();
    expect(pods).toHaveLength(made.pods.length);
    expect(seam.count('GET /v2/pods')).toBe(Math.ceil(made.pods.length / 1000));
  }, 120_000);

  it('an ambiguous create is found by its marker on a late page, after 1,500 newer pods pushed it there', async () => {
    let marker = '';
    // The create reaches the server and the pod is made; then, before the answer comes back, others
    // create 1,500 pods on the account; then the answer is lost (502). Seeding takes a few seconds,
    // in which the server may close the idle keep-alive socket: the lookup's first GET can meet a
    // reset and is retried by the core (a read may be), which is why answers are counted below.
    const seam = countingFetch(async (input, init) => {
      const res = await globalThis.fetch(input, init);
      if (init?.method !== 'POST') return res;
      marker = (JSON.parse(String(init.body)) as { env: Record<string, string> }).env[CREATE_MARKER_ENV]!;
      expect(res.status).toBe(201);
      for (let i = 0; i < 1_500; i++) made.pods.push(await seedPod(`newer-${i}`));
      return new Response('<html>502 Bad Gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } });
    });
    const rest = createRunpodRestClient({ ...ctx.server.clientOptions(KEY_A), fetch: seam.fetch });
    const pod = await rest.pods.create({ name: 'marked', image: 'img:1', cpu: { id: 'cpu3c', vcpuCount: 2 } });
    expect(pod.env?.[CREATE_MARKER_ENV]).toBe(marker);
    expect(pod.name).toBe('marked');
    expect(seam.count('POST /v2/pods')).toBe(1); // never resent
    expect(seam.answered('GET /v2/pods')).toBe(2); // found on page 2 of 5, and no page after it read
    made.pods.push(pod.id);

    // rp.pods.findByMarker over REST walks every page as well.
    const rp = client(globalThis.fetch, { podsTransport: 'rest' });
    expect((await rp.pods.findByMarker(marker))?.id).toBe(pod.id);
    expect(await rp.pods.findByMarker('0'.repeat(32))).toBeNull();
  }, 300_000);
});
