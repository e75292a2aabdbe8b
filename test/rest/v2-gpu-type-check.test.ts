import { describe, expect, it } from 'vitest';
import { AbortError, createRunpodClient, ValidationError } from '../../src/index.js';
import { captureError, GPU_CATALOG, json, recordingFetch, TEST_API_KEY } from '../helpers.js';

const pod = { id: 'p1', name: 'n', desiredStatus: 'RUNNING' };
const body = (gpuId: string) => ({ name: 'trainer', image: 'img', gpu: { id: gpuId, count: 1 } });
const isCatalog = (url: URL) => url.pathname === '/v2/catalog/gpus';

function client(catalog: () => Response | Promise<Response> = () => json(GPU_CATALOG)) {
  const recorded = recordingFetch((call) => (isCatalog(call.url) ? catalog() : json(pod, { status: 201 })));
  const rp = createRunpodClient({ apiKey: TEST_API_KEY, fetch: recorded.fetch, maxRetries: 0 });
  const creates = () => recorded.calls.filter((c) => c.method === 'POST').length;
  const catalogReads = () => recorded.calls.filter((c) => isCatalog(c.url)).length;
  return { rp, creates, catalogReads };
}

describe('rest.pods.create checks gpu.id against the GPU catalog, as deploy does', () => {
  it('a display name is refused before the create, naming the closest id', async () => {
    const { rp, creates } = client();
    const err = await captureError<ValidationError>(rp.rest.pods.create(body('RTX 4090')));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.field).toBe('body.gpu.id');
    expect(err.message).toContain('did you mean "NVIDIA GeForce RTX 4090"?');
    expect(creates()).toBe(0);
  });

  it('a known id is sent; the catalog is read once per client, shared by concurrent creates', async () => {
    const { rp, creates, catalogReads } = client();
    await Promise.all([rp.rest.pods.create(body('NVIDIA L4')), rp.rest.pods.create(body('NVIDIA L4')), rp.rest.pods.create(body('NVIDIA RTX A4000'))]);
    await rp.rest.pods.create(body('NVIDIA L4'));
    expect(creates()).toBe(4);
    expect(catalogReads()).toBe(1);
  });

  it.each([
    ['a 500', () => json({ error: 'down' }, { status: 500 })],
    ['a 429 with a long Retry-After', () => json({ error: 'slow' }, { status: 429, headers: { 'retry-after': '3600' } })],
    ['an answer of another shape', () => json({ gpus: 'none' })],
    ['an empty catalog', () => json({ gpus: [] })],
  ])('a catalog that cannot be read (%s) never blocks the create', async (_name, answer) => {
    const { rp, creates } = client(answer);
    const started = performance.now();
    await expect(rp.rest.pods.create(body('whatever-id'))).resolves.toMatchObject({ id: 'p1' });
    expect(creates()).toBe(1);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("the caller's signal ends its wait for a slow catalog; the shared read goes on for the others", async () => {
    let answer!: (r: Response) => void;
    const { rp, creates, catalogReads } = client(() => new Promise<Response>((resolve) => (answer = resolve)));
    const controller = new AbortController();
    const aborted = rp.rest.pods.create(body('NVIDIA L4'), { signal: controller.signal });
    const other = rp.rest.pods.create(body('NVIDIA L4'));
    setTimeout(() => controller.abort(), 20);
    const started = performance.now();
    expect(await captureError(aborted)).toBeInstanceOf(AbortError);
    expect(performance.now() - started).toBeLessThan(1_000);
    answer(json(GPU_CATALOG));
    await expect(other).resolves.toMatchObject({ id: 'p1' });
    expect(creates()).toBe(1);
    expect(catalogReads()).toBe(1);
  });

  it('an empty name is refused before anything is sent, the catalog read included', async () => {
    const { rp, creates, catalogReads } = client();
    const err = await captureError<ValidationError>(rp.rest.pods.create({ ...body('NVIDIA L4'), name: '' }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.field).toBe('body.name');
    expect(creates() + catalogReads()).toBe(0);
  });
});
