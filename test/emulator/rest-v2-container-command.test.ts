// Container `cmd` and `entrypoint` (BaseContainerConfig in the merged contract): what a create,
// an update, a template and a cluster set comes back on every pod and template answer, and every
// answer is checked against the merged contract by the independent validator.
import { describe, expect, it } from 'vitest';
import { createEmulator, EMULATOR_API_KEY } from '../../src/emulator/index.js';
import { createRunpodClient } from '../../src/index.js';
import { answerProblems } from './rest-v2-contract-check.js';

function session() {
  const emulator = createEmulator({ clock: 'manual', podStartupMs: 0 });
  const { restUrl, fetch } = emulator.clientOptions();
  const problems: string[] = [];
  async function call(method: string, path: string, body?: unknown) {
    const res = await fetch!(`${restUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${EMULATOR_API_KEY}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    problems.push(...answerProblems(method, new URL(`${restUrl}${path}`).pathname, res.status, res.headers.get('content-type'), text));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- checked against the contract above
    return { status: res.status, json: JSON.parse(text) as any, text };
  }
  return { emulator, call, problems };
}

const gpu = { id: 'NVIDIA RTX A4000' };

describe('pods answer their container cmd and entrypoint', () => {
  it('as created, updated, listed, inherited from a template, and as set through args JSON', async () => {
    const { call, problems } = session();
    const plain = await call('POST', '/pods', { name: 'plain', image: 'img:1', gpu });
    expect(plain.status, plain.text).toBe(201);
    expect(plain.json).toMatchObject({ cmd: [], entrypoint: [] });

    const given = await call('POST', '/pods', { name: 'given', image: 'img:1', gpu, entrypoint: ['/bin/sh', '-c'], cmd: ['python serve.py'] });
    expect(given.json).toMatchObject({ entrypoint: ['/bin/sh', '-c'], cmd: ['python serve.py'] });
    expect((await call('GET', `/pods/${given.json.id}`)).json).toMatchObject({ entrypoint: ['/bin/sh', '-c'], cmd: ['python serve.py'] });
    const listed = (await call('GET', '/pods')).json.pods.find((p: { id: string }) => p.id === given.json.id);
    expect(listed).toMatchObject({ entrypoint: ['/bin/sh', '-c'], cmd: ['python serve.py'] });

    // `args` is the stored raw command: as JSON it sets both; as a shell string, neither.
    const raw = JSON.stringify({ entrypoint: ['bash'], cmd: ['-lc', 'sleep 1'] });
    const fromArgs = await call('POST', '/pods', { name: 'raw', image: 'img:1', gpu, args: raw });
    expect(fromArgs.json).toMatchObject({ args: raw, entrypoint: ['bash'], cmd: ['-lc', 'sleep 1'] });
    const shell = await call('POST', '/pods', { name: 'shell', image: 'img:1', gpu, args: 'sleep infinity' });
    expect(shell.json).toMatchObject({ args: 'sleep infinity', entrypoint: [], cmd: [] });
    const brace = await call('POST', '/pods', { name: 'brace', image: 'img:1', gpu, args: '{ not json' });
    expect(brace.json).toMatchObject({ args: '{ not json', cmd: [] });

    const updated = await call('PATCH', `/pods/${given.json.id}`, { cmd: ['python', 'other.py'] });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toMatchObject({ entrypoint: ['/bin/sh', '-c'], cmd: ['python', 'other.py'] });

    const template = await call('POST', '/templates', { name: 't', image: 'img:2', entrypoint: ['/start.sh'], cmd: ['--serve'] });
    expect(template.json).toMatchObject({ entrypoint: ['/start.sh'], cmd: ['--serve'] });
    const inherited = await call('POST', '/pods', { name: 'from-template', templateId: template.json.id, gpu });
    expect(inherited.json).toMatchObject({ image: 'img:2', entrypoint: ['/start.sh'], cmd: ['--serve'] });
    const overridden = await call('POST', '/pods', { name: 'override', templateId: template.json.id, gpu, cmd: ['--train'] });
    expect(overridden.json).toMatchObject({ entrypoint: ['/start.sh'], cmd: ['--train'] });
    expect((await call('PATCH', `/templates/${template.json.id}`, { entrypoint: ['/other.sh'] })).json).toMatchObject({ entrypoint: ['/other.sh'], cmd: ['--serve'] });

    const cluster = await call('POST', '/clusters', { name: 'c', type: 'TRAINING', compute: { gpuTypeId: 'NVIDIA L40S', gpuCountPerPod: 1, podCount: 2 }, image: 'img:3', cmd: ['torchrun'] });
    expect(cluster.status, cluster.text).toBe(201);
    const members = (await call('GET', '/pods?includeClusterPods=true')).json.pods.filter((p: { cluster?: unknown }) => p.cluster);
    expect(members.length).toBe(2);
    for (const m of members) expect(m).toMatchObject({ cmd: ['torchrun'], entrypoint: [] });

    expect(problems).toEqual([]);
    // A non-string item is refused by the contract (422), before anything is made.
    const before = (await call('GET', '/pods?includeClusterPods=true')).json.pods.length;
    expect((await call('POST', '/pods', { name: 'bad', image: 'img:1', gpu, cmd: [1] })).status).toBe(422);
    expect((await call('GET', '/pods?includeClusterPods=true')).json.pods.length).toBe(before);
  });

  it('rp.rest.pods reads them in the generated types', async () => {
    const { emulator } = session();
    const rp = createRunpodClient(emulator.clientOptions());
    const pod = await rp.rest.pods.create({ name: 'typed', image: 'img:1', gpu, entrypoint: ['/bin/sh'], cmd: ['-c', 'true'] });
    const read = await rp.rest.pods.get(pod.id);
    expect([read.entrypoint, read.cmd]).toEqual([['/bin/sh'], ['-c', 'true']]);
  });
});
