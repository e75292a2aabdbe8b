import { describe, expect, it } from 'vitest';
import { createEmulator, EMULATOR_API_KEY } from '../../src/emulator/index.js';
import { createRunpodClient, ConflictError, ValidationError } from '../../src/index.js';
import { answerProblems, operationFor } from './rest-v2-contract-check.js';

// The operations added after v2.9.0 that this change serves: secrets, exec, and the 413 on pod
// create. Every answer is checked against the merged contract by an independent validator.

function session() {
  const emulator = createEmulator({ clock: 'manual', podStartupMs: 2_000 });
  const { restUrl, fetch } = emulator.clientOptions();
  const called = new Set<string>();
  const problems: string[] = [];
  async function call(method: string, path: string, body?: unknown, auth = true, raw?: string) {
    const res = await fetch!(`${restUrl}${path}`, {
      method,
      headers: { ...(auth && { authorization: `Bearer ${EMULATOR_API_KEY}` }), ...((body !== undefined || raw) && { 'content-type': 'application/json' }) },
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await res.text();
    const pathname = new URL(`${restUrl}${path}`).pathname;
    const found = operationFor(method, pathname);
    if (found) called.add(found.op.operationId);
    problems.push(...answerProblems(method, pathname, res.status, res.headers.get('content-type'), text));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- checked against the contract above
    return { status: res.status, json: text ? (JSON.parse(text) as any) : undefined, text };
  }
  return { emulator, call, called, problems, rp: createRunpodClient(emulator.clientOptions()) };
}

describe('REST v2 emulator: secrets, exec and the 413 against the merged contract', () => {
  it('serves the secret CRUD; names follow the rules; the value is never answered; a pod env reference resolves only inside the container', async () => {
    const { emulator, call, called, problems, rp } = session();
    const created = await call('POST', '/account/secrets', { name: 'HF_TOKEN', value: 'hf_live_value', description: 'hub' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: 'HF_TOKEN', description: 'hub' });
    expect((await call('POST', '/account/secrets', { name: 'HF_TOKEN', value: 'x' })).status).toBe(409);
    expect((await call('POST', '/account/secrets', { name: 'RunPod_X', value: 'x' })).status).toBe(400);
    expect((await call('POST', '/account/secrets', { name: '9bad', value: 'x' })).status).toBe(422);
    expect((await call('POST', '/account/secrets', { name: 'N'.repeat(192), value: 'x' })).status).toBe(422);
    expect((await call('GET', '/account/secrets')).json.secrets).toHaveLength(1);
    expect((await call('GET', '/account/secrets?name=NOPE')).json.secrets).toEqual([]);
    expect((await call('GET', `/account/secrets/${created.json.id}`)).status).toBe(200);
    expect((await call('PATCH', `/account/secrets/${created.json.id}`, {})).status).toBe(422);
    expect((await call('PATCH', `/account/secrets/${created.json.id}`, { value: 'hf_rotated', description: '' })).json.description).toBeNull();

    // The pod's answer shows the reference; the container sees the value.
    const pod = await rp.rest.pods.create({ name: 'p', image: 'me/app:1', gpu: { id: 'NVIDIA RTX A4000' }, env: { HF: '{{ RUNPOD_SECRET_HF_TOKEN }}', PLAIN: 'x' } });
    await emulator.clock.advance(2_000);
    const answer = await call('GET', `/pods/${pod.id}`);
    expect(answer.json.env).toEqual({ HF: '{{ RUNPOD_SECRET_HF_TOKEN }}', PLAIN: 'x', RUNPOD_GQL_CREATE_MARKER: expect.any(String) });
    for (const path of ['/pods', `/pods/${pod.id}`, '/account/secrets', `/account/secrets/${created.json.id}`]) expect((await call('GET', path)).text).not.toContain('hf_rotated');
    expect(await rp.rest.pods.exec(pod.id, { command: ['printenv', 'HF', 'PLAIN'] })).toEqual({ exitCode: 0, stdout: 'hf_rotated\nx\n', stderr: '' });

    expect((await call('DELETE', `/account/secrets/${created.json.id}`)).status).toBe(204);
    expect((await call('GET', `/account/secrets/${created.json.id}`)).status).toBe(404);
    expect(problems).toEqual([]);
    expect([...called].filter((op) => /Secret/.test(op)).sort()).toEqual(['createSecret', 'deleteSecret', 'getSecret', 'listSecrets', 'updateSecret']);
  });

  it('exec runs the default programs and the ones a test defines, 127 for an unknown one, 409 unless RUNNING', async () => {
    const { emulator, call, called, problems, rp } = session();
    const pod = await rp.rest.pods.create({ name: 'p', image: 'me/app:1', gpu: { id: 'NVIDIA RTX A4000' } });
    expect((await call('POST', `/pods/${pod.id}/exec`, { command: ['echo', 'hi'] })).status).toBe(409);
    await expect(rp.rest.pods.exec(pod.id, { command: ['echo', 'hi'] })).rejects.toBeInstanceOf(ConflictError);
    await emulator.clock.advance(2_000);
    expect((await call('POST', `/pods/${pod.id}/exec`, { command: ['echo', 'hello', 'world'] })).json).toEqual({ exitCode: 0, stdout: 'hello world\n', stderr: '' });
    expect((await call('POST', `/pods/${pod.id}/exec`, { command: ['pwd'], cwd: '/workspace' })).json.stdout).toBe('/workspace\n');
    expect((await call('POST', `/pods/${pod.id}/exec`, { command: ['false'] })).json.exitCode).toBe(1);
    expect((await call('POST', `/pods/${pod.id}/exec`, { command: ['nvidia-smi', '-L'] })).json).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/^GPU 0: NVIDIA RTX A4000 \(UUID: GPU-/) });
    expect((await call('POST', `/pods/${pod.id}/exec`, { command: ['nvcc', '--version'] })).json).toMatchObject({ exitCode: 127, stderr: expect.stringContaining('"nvcc": executable file not found') });
    emulator.exec.define('python', (args, { podId }) => ({ exitCode: args[0] === '-c' ? 3 : 0, stdout: `ran in ${podId}\n`, stderr: 'warn\n' }));
    expect(await rp.rest.pods.exec(pod.id, { command: ['python', '-c', 'exit(3)'], timeoutSeconds: 5 })).toEqual({ exitCode: 3, stdout: `ran in ${pod.id}\n`, stderr: 'warn\n' });
    expect((await call('POST', `/pods/${pod.id}/exec`, { command: [] })).status).toBe(422);
    expect((await call('POST', '/pods/nope/exec', { command: ['true'] })).status).toBe(404);
    expect(problems).toEqual([]);
    expect(called.has('execPod')).toBe(true);
  });

  it('answers 413 to a pod create over 102,400 bytes before authentication, and counts what a template brings', async () => {
    const { call, problems, rp } = session();
    const big = JSON.stringify({ name: 'p', image: 'i', gpu: { id: 'NVIDIA RTX A4000' }, env: { B: 'x'.repeat(102_400) } });
    const keyless = await call('POST', '/pods', undefined, false, big);
    expect(keyless.status).toBe(413);
    expect(keyless.json.detail).toMatch(/1024\d\d bytes exceeds the 102400 byte limit/);
    // The client refuses the same body before sending.
    await expect(rp.rest.pods.create(JSON.parse(big))).rejects.toBeInstanceOf(ValidationError);
    // A small body over a big template: the deployment request built from both is too large.
    const template = await rp.rest.templates.create({ name: 't', image: 'i', env: { T: 'y'.repeat(80_000) } });
    const inherited = await call('POST', '/pods', { name: 'p', templateId: template.id, gpu: { id: 'NVIDIA RTX A4000' }, env: { B: 'x'.repeat(30_000) } });
    expect(inherited.status).toBe(413);
    expect(inherited.json.detail).toContain(template.id);
    expect((await call('POST', '/pods', { name: 'p', templateId: template.id, gpu: { id: 'NVIDIA RTX A4000' } })).status).toBe(201);
    expect(problems).toEqual([]);
  });
});
