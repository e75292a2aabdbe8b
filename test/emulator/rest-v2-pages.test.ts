// The emulator pages every REST v2 list as production does, with one page cutter.
import { describe, expect, it } from 'vitest';
import { createEmulator, EMULATOR_API_KEY } from '../../src/emulator/index.js';

const OTHER_KEY = 'rpa_pages_other_account';

function session() {
  const emulator = createEmulator({ clock: 'manual', apiKeys: [EMULATOR_API_KEY, OTHER_KEY], restRateLimitPerMinute: 100_000 });
  const { restUrl } = emulator.clientOptions();
  async function call(method: string, path: string, body?: unknown, key = EMULATOR_API_KEY) {
    const res = await emulator.fetch(
      new Request(`${restUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const text = await res.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers read loosely; their shapes are checked by the contract tests
    return { status: res.status, json: (text ? JSON.parse(text) : undefined) as any };
  }
  const cpuPod = async (name: string, key?: string) => (await call('POST', '/pods', { name, image: 'img:1', cpu: { id: 'cpu3c', vcpuCount: 2 } }, key)).json.id as string;
  /** Every page of `path` (a query string may follow), as the ids of each page. */
  async function walk(path: string, key: string, limit?: number) {
    const pages: string[][] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 100; n++) {
      const params = new URLSearchParams(path.split('?')[1]);
      if (limit !== undefined) params.set('limit', String(limit));
      if (cursor) params.set('cursor', cursor);
      const { status, json } = await call('GET', `${path.split('?')[0]}?${params}`);
      expect(status).toBe(200);
      pages.push(json[key].map((item: { id: string }) => item.id));
      expect(Object.keys(json.pagination).sort()).toEqual(['hasNextPage', 'nextCursor']);
      if (!json.pagination.hasNextPage) {
        expect(json.pagination.nextCursor).toBeNull();
        return pages;
      }
      cursor = json.pagination.nextCursor;
      expect(typeof cursor).toBe('string');
    }
    throw new Error('the walk did not end');
  }
  return { emulator, call, cpuPod, walk };
}

describe('emulator REST v2 pages', () => {
  it('pods: newest first; without includeClusterPods cluster members leave short pages that are not the last', async () => {
    const { call, cpuPod, walk } = session();
    const older = [];
    for (let i = 0; i < 5; i++) older.push(await cpuPod(`old-${i}`));
    const cluster = await call('POST', '/clusters', { name: 'c', type: 'TRAINING', image: 'img:1', compute: { gpuTypeId: 'NVIDIA RTX A4000', gpuCountPerPod: 1, podCount: 4 } });
    expect(cluster.status).toBe(201);
    const newer = [];
    for (let i = 0; i < 3; i++) newer.push(await cpuPod(`new-${i}`));

    const all = await walk('/pods?includeClusterPods=true', 'pods', 3);
    expect(all.map((p) => p.length)).toEqual([3, 3, 3, 3]);
    expect(all.flat()).toHaveLength(12);
    expect(all.flat().slice(0, 3)).toEqual([...newer].reverse());
    expect(all.flat().slice(-5)).toEqual([...older].reverse());

    const own = await walk('/pods', 'pods', 3);
    expect(own.flat()).toEqual([...newer.reverse(), ...older.reverse()]);
    // Cut first, then filtered: the pages over the cluster are short (one is empty), and the walk still reaches the end.
    expect(own.map((p) => p.length)).toEqual([3, 0, 2, 3]);

    // No limit: the contract's default of 1000, so one page.
    expect((await call('GET', '/pods')).json.pagination).toEqual({ nextCursor: null, hasNextPage: false });
  });

  it('templates, endpoints and releases page the same way', async () => {
    const { call, walk } = session();
    const made = [];
    for (let i = 0; i < 7; i++) made.push((await call('POST', '/templates', { name: `t${i}`, image: 'img:1' })).json.id);
    expect((await walk('/templates', 'templates', 2)).flat()).toEqual(made.reverse());

    const endpointBody = (name: string) => ({ name, type: 'QUEUE', image: 'me/echo:1', scaling: { type: 'QUEUE_DELAY', queueDelay: 4 }, workers: { min: 0, max: 1 } });
    const endpoint = (await call('POST', '/serverless', endpointBody('ep'))).json;
    const more = (await call('POST', '/serverless', endpointBody('ep2'))).json;
    expect((await walk('/serverless', 'endpoints', 1)).flat()).toEqual([more.id, endpoint.id]);
    for (let i = 1; i <= 4; i++) await call('PATCH', `/serverless/${endpoint.id}`, { workers: { max: i + 1 } });
    const releases = await walk(`/serverless/${endpoint.id}/releases`, 'releases', 2);
    expect(releases.map((p) => p.length)).toEqual([2, 2, 1]);
    const versions = (await call('GET', `/serverless/${endpoint.id}/releases?limit=5`)).json.releases.map((r: { version: number }) => r.version);
    expect(versions).toEqual([5, 4, 3, 2, 1]);
  });

  it.each(['0', '1001', '-1', '2.5', 'ten', ''])('limit=%s is 422', async (limit) => {
    const { call } = session();
    const answer = await call('GET', `/pods?limit=${limit}`);
    expect(answer.status).toBe(422);
    expect(answer.json.errors.join()).toMatch(/limit/);
  });

  it('a malformed, empty or foreign cursor is 422: a cursor is bound to the account, the route and its parameters', async () => {
    const { call, cpuPod } = session();
    for (let i = 0; i < 3; i++) await cpuPod(`p${i}`);
    await cpuPod('theirs', OTHER_KEY);
    for (let i = 0; i < 3; i++) await call('POST', '/templates', { name: `t${i}`, image: 'img:1' });
    const podCursor = (await call('GET', '/pods?limit=1')).json.pagination.nextCursor as string;
    const clusterCursor = (await call('GET', '/pods?limit=1&includeClusterPods=true')).json.pagination.nextCursor as string;
    const templateCursor = (await call('GET', '/templates?limit=1')).json.pagination.nextCursor as string;
    expect((await call('GET', `/pods?limit=1&cursor=${encodeURIComponent(podCursor)}`)).status).toBe(200);
    // Another page size is the same list.
    expect((await call('GET', `/pods?limit=2&cursor=${encodeURIComponent(podCursor)}`)).status).toBe(200);

    const refused = [
      ['malformed', '/pods?cursor=not-a-cursor!'],
      ['base64 of junk', `/pods?cursor=${btoa('{"b":1}')}`],
      ['empty', '/pods?cursor='],
      ['another route', `/pods?cursor=${encodeURIComponent(templateCursor)}`],
      ['other parameters', `/pods?cursor=${encodeURIComponent(clusterCursor)}`],
      ['a pod cursor on templates', `/templates?cursor=${encodeURIComponent(podCursor)}`],
    ];
    for (const [why, path] of refused) {
      const answer = await call('GET', path!);
      expect(answer.status, why).toBe(422);
      expect(answer.json.errors.join(), why).toMatch(/cursor/);
    }
    expect((await call('GET', `/pods?cursor=${encodeURIComponent(podCursor)}`, undefined, OTHER_KEY)).status).toBe(422);
  });

  it('pods created between pages neither repeat nor hide the ones after the cursor', async () => {
    const { call, cpuPod } = session();
    const made = [];
    for (let i = 0; i < 6; i++) made.push(await cpuPod(`p${i}`));
    const first = (await call('GET', '/pods?limit=3')).json;
    await cpuPod('later-1');
    await cpuPod('later-2');
    const second = (await call('GET', `/pods?limit=3&cursor=${encodeURIComponent(first.pagination.nextCursor)}`)).json;
    const ids = [...first.pods, ...second.pods].map((p: { id: string }) => p.id);
    expect(ids).toEqual([...made].reverse());
    expect(second.pagination.hasNextPage).toBe(false);
  });
});
