import { describe, expect, it } from 'vitest';
import { PossiblyCreatedError, TransportUnsupportedError, ValidationError } from '../../src/index.js';
import { recordingClient } from '../recording-client.js';
import { runAccountDocument } from './account-executor.js';

const image = 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04';
const KEY_ONE = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOne one@example';
const KEY_TWO = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAITwo two@example';

const setup = () => recordingClient({}, { graphqlTransport: 'rest' });
const firstError = (r: { errors?: readonly { originalError?: Error | undefined; message: string }[] | undefined }) => r.errors?.[0]?.originalError ?? r.errors?.[0];

const SAVE_TEMPLATE = `mutation($input: SaveTemplateInput) { saveTemplate(input: $input) {
  id name imageName containerDiskInGb dockerArgs ports volumeInGb volumeMountPath isServerless isPublic startSsh env { key value } } }`;
// runpod-python's create_template input (its defaults included), written from its public behaviour.
const pythonTemplate = {
  name: 'tpl-a', imageName: image, dockerArgs: 'python app.py', containerDiskInGb: 20, volumeInGb: 15, volumeMountPath: '/workspace',
  ports: '8888/http, 22/tcp', env: [{ key: 'MODE', value: 'train' }], isServerless: false, startSsh: true, isPublic: false, readme: '',
};

describe('the account resolvers over the emulator REST v2, through the field map', () => {
  it('saveTemplate creates once (POST /v2/templates), maps every input field, and answers through the map', async () => {
    const { rp, sent } = setup();
    const result = await runAccountDocument(rp, SAVE_TEMPLATE, { input: pythonTemplate });
    expect(result.errors).toBeUndefined();
    expect(result.data?.saveTemplate).toEqual({
      id: expect.any(String), name: 'tpl-a', imageName: image, containerDiskInGb: 20, dockerArgs: 'python app.py', ports: '8888/http,22/tcp',
      volumeInGb: 15, volumeMountPath: '/workspace', isServerless: false, isPublic: false, startSsh: true, env: [{ key: 'MODE', value: 'train' }],
    });
    expect(sent.filter((s) => s.method === 'POST' && s.path === '/v2/templates')).toHaveLength(1);
    const got = await runAccountDocument(rp, `query($id: String!) { podTemplate(id: $id) { name } myself { podTemplates { id name } } }`, { id: (result.data!.saveTemplate as { id: string }).id });
    expect(got.errors).toBeUndefined();
    expect(got.data).toEqual({ podTemplate: { name: 'tpl-a' }, myself: { podTemplates: [{ id: expect.any(String), name: 'tpl-a' }] } });
    expect((await runAccountDocument(rp, `{ podTemplate(id: "nope") { id } }`)).data).toEqual({ podTemplate: null });
  });

  it('saveTemplate with an id updates (PATCH); volumeInGb 0 removes the volume', async () => {
    const { rp, sent } = setup();
    const made = await rp.rest.templates.create({ name: 't', image, mounts: { persistent: { size: 20, path: '/workspace' } } });
    const result = await runAccountDocument(rp, SAVE_TEMPLATE, { input: { ...pythonTemplate, id: made.id, name: 't2', volumeInGb: 0, volumeMountPath: null } });
    expect(result.errors).toBeUndefined();
    expect(result.data?.saveTemplate).toMatchObject({ id: made.id, name: 't2', volumeInGb: 0, volumeMountPath: null });
    expect(sent.filter((s) => s.method === 'PATCH' && s.path === `/v2/templates/${made.id}`)).toHaveLength(1);
  });

  it('saveTemplate refuses inputs REST v2 cannot honour, naming input.<field>, before sending', async () => {
    const { rp, sent } = setup();
    for (const [field, value] of [['readme', '# hello'], ['startScript', 'bash run.sh'], ['advancedStart', true], ['config', '{}'], ['category', 'GPU']] as const) {
      sent.length = 0;
      const err = firstError(await runAccountDocument(rp, SAVE_TEMPLATE, { input: { ...pythonTemplate, [field]: value } }));
      expect(err).toBeInstanceOf(TransportUnsupportedError);
      expect((err as TransportUnsupportedError).fields).toEqual([`input.${field}`]);
      expect((err as Error).message).not.toMatch(/podsTransport|graphqlTransport|option/);
      expect(sent).toEqual([]);
    }
    const missing = firstError(await runAccountDocument(rp, SAVE_TEMPLATE, { input: { ...pythonTemplate, volumeMountPath: null } }));
    expect(missing).toBeInstanceOf(ValidationError);
    expect((missing as ValidationError).field).toBe('input.volumeMountPath');
    expect(sent).toEqual([]);
  });

  it('deleteTemplate deletes by name; an unknown name is a ValidationError naming templateName', async () => {
    const { rp, sent } = setup();
    const made = await rp.rest.templates.create({ name: 'gone', image });
    sent.length = 0;
    const result = await runAccountDocument(rp, `mutation { deleteTemplate(templateName: "gone") }`);
    expect(result.errors).toBeUndefined();
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual(['GET /v2/templates', `DELETE /v2/templates/${made.id}`]);
    const err = firstError(await runAccountDocument(rp, `mutation { deleteTemplate(templateName: "gone") }`));
    expect((err as ValidationError).field).toBe('templateName');
  });

  it('saveEndpoint creates (gpuIds with exclusions, locations, scaler, workers) and updates by id; updateEndpointTemplate; deleteEndpoint', async () => {
    const { rp, sent } = setup();
    const template = await rp.rest.templates.create({ name: 'worker', image, serverless: true });
    const doc = `mutation($input: EndpointInput!) { saveEndpoint(input: $input) {
      id name gpuIds gpuCount locations scalerType scalerValue workersMin workersMax idleTimeout executionTimeoutMs networkVolumeId type computeType env { key } } }`;
    const input = {
      name: 'ep', templateId: template.id, gpuIds: 'AMPERE_16,-NVIDIA RTX A4000', gpuCount: 1, locations: 'EU-RO-1', scalerType: 'QUEUE_DELAY', scalerValue: 4,
      workersMin: 0, workersMax: 3, idleTimeout: 5, executionTimeoutMs: 600000,
    };
    const made = await runAccountDocument(rp, doc, { input });
    expect(made.errors).toBeUndefined();
    const endpoint = made.data!.saveEndpoint as Record<string, unknown>;
    expect(endpoint).toMatchObject({
      name: 'ep', gpuIds: 'AMPERE_16,-NVIDIA RTX A4000', gpuCount: 1, locations: 'EU-RO-1', scalerType: 'QUEUE_DELAY', scalerValue: 4,
      workersMin: 0, workersMax: 3, idleTimeout: 5, executionTimeoutMs: 600000, networkVolumeId: null, type: 'QUEUE', computeType: 'GPU',
    });
    expect(sent.filter((s) => s.method === 'POST' && s.path === '/v2/serverless')).toHaveLength(1);
    const updated = await runAccountDocument(rp, doc, { input: { id: endpoint.id, name: 'ep2', workersMax: 5 } });
    expect(updated.errors).toBeUndefined();
    expect(updated.data?.saveEndpoint).toMatchObject({ id: endpoint.id, name: 'ep2', workersMax: 5, scalerValue: 4 });
    const other = await rp.rest.templates.create({ name: 'worker2', image, serverless: true });
    const swapped = await runAccountDocument(rp, `mutation($input: UpdateEndpointTemplateInput) { updateEndpointTemplate(input: $input) { id } }`, { input: { endpointId: endpoint.id, templateId: other.id } });
    expect(swapped.errors).toBeUndefined();
    const listed = await runAccountDocument(rp, `{ myself { endpoints { id name } } }`);
    expect(listed.data).toEqual({ myself: { endpoints: [{ id: endpoint.id, name: 'ep2' }] } });
    expect((await runAccountDocument(rp, `mutation($id: String!) { deleteEndpoint(id: $id) }`, { id: endpoint.id })).errors).toBeUndefined();
    expect((await runAccountDocument(rp, `{ myself { endpoints { id } } }`)).data).toEqual({ myself: { endpoints: [] } });
  });

  it('saveEndpoint refuses what REST v2 cannot honour, and needs a scaler on create, before sending', async () => {
    const { rp, sent } = setup();
    const doc = `mutation($input: EndpointInput!) { saveEndpoint(input: $input) { id } }`;
    const base = { name: 'ep', templateId: 't', gpuIds: 'AMPERE_16', scalerType: 'QUEUE_DELAY', scalerValue: 4 };
    for (const [field, value] of [['instanceIds', ['cpu3c-2-4']], ['workersPFBTarget', 1], ['modelName', 'm'], ['hubReleaseId', 'r']] as const) {
      const err = firstError(await runAccountDocument(rp, doc, { input: { ...base, [field]: value } }));
      expect((err as TransportUnsupportedError).fields).toEqual([`input.${field}`]);
    }
    const noScaler = firstError(await runAccountDocument(rp, doc, { input: { name: 'ep', templateId: 't', gpuIds: 'AMPERE_16' } }));
    expect((noScaler as ValidationError).field).toBe('input.scalerType');
    const typeChange = firstError(await runAccountDocument(rp, doc, { input: { id: 'x', name: 'ep', type: 'LOAD_BALANCER' } }));
    expect((typeChange as TransportUnsupportedError).fields).toEqual(['input.type']);
    expect(sent).toEqual([]);
  });

  it('network volumes: create, list, update, delete, and a volume under an endpoint', async () => {
    const { rp } = setup();
    const doc = `mutation($input: CreateNetworkVolumeInput) { createNetworkVolume(input: $input) { id name size dataCenterId } }`;
    const made = await runAccountDocument(rp, doc, { input: { name: 'data', size: 20, dataCenterId: 'EU-RO-1' } });
    expect(made.errors).toBeUndefined();
    const volume = made.data!.createNetworkVolume as { id: string };
    expect(volume).toEqual({ id: expect.any(String), name: 'data', size: 20, dataCenterId: 'EU-RO-1' });
    const grown = await runAccountDocument(rp, `mutation($input: UpdateNetworkVolumeInput) { updateNetworkVolume(input: $input) { size } }`, { input: { id: volume.id, size: 30 } });
    expect(grown.data).toEqual({ updateNetworkVolume: { size: 30 } });
    expect((await runAccountDocument(rp, `{ myself { networkVolumes { id size } } }`)).data).toEqual({ myself: { networkVolumes: [{ id: volume.id, size: 30 }] } });
    const template = await rp.rest.templates.create({ name: 'worker', image, serverless: true });
    const withVolume = await runAccountDocument(
      rp,
      `mutation($input: EndpointInput!) { saveEndpoint(input: $input) { networkVolumeId networkVolume { id size dataCenterId dataCenter { id } } } }`,
      { input: { name: 'ep', templateId: template.id, gpuIds: 'AMPERE_16', networkVolumeId: volume.id, scalerType: 'QUEUE_DELAY', scalerValue: 4 } },
    );
    expect(withVolume.errors).toBeUndefined();
    expect(withVolume.data).toEqual({ saveEndpoint: { networkVolumeId: volume.id, networkVolume: { id: volume.id, size: 30, dataCenterId: 'EU-RO-1', dataCenter: { id: 'EU-RO-1' } } } });
    await rp.rest.endpoints.delete((await rp.rest.endpoints.list())[0]!.id);
    const refused = firstError(await runAccountDocument(rp, doc, { input: { name: 'x', size: 20, dataCenterId: 'EU-RO-1', userId: 'user_1' } }));
    expect((refused as TransportUnsupportedError).fields).toEqual(['input.userId']);
    const missing = firstError(await runAccountDocument(rp, doc, { input: { name: 'x', size: 20 } }));
    expect((missing as ValidationError).field).toBe('input.dataCenterId');
    expect((await runAccountDocument(rp, `mutation($input: DeleteNetworkVolumeInput) { deleteNetworkVolume(input: $input) }`, { input: { id: volume.id } })).errors).toBeUndefined();
    expect((await runAccountDocument(rp, `{ myself { networkVolumes { id } } }`)).data).toEqual({ myself: { networkVolumes: [] } });
  });

  it('registry auths: save (the password never in the answer), list, delete; updateRegistryAuth has no source', async () => {
    const { rp } = setup();
    const password = 'pw-Very-Secret-123456';
    const made = await runAccountDocument(rp, `mutation($input: SaveRegistryAuthInput) { saveRegistryAuth(input: $input) { id name } }`, { input: { name: 'hub', username: 'me', password } });
    expect(made.errors).toBeUndefined();
    const { id } = made.data!.saveRegistryAuth as { id: string };
    const listed = await runAccountDocument(rp, `{ myself { containerRegistryCreds { id name registryAuth } } }`);
    expect(listed.data).toEqual({ myself: { containerRegistryCreds: [{ id, name: 'hub', registryAuth: null }] } });
    expect((firstError(listed) as TransportUnsupportedError).fields).toEqual(['ContainerRegistryAuth.registryAuth']);
    expect(JSON.stringify(listed)).not.toContain(password);
    const update = await runAccountDocument(rp, `mutation($input: UpdateRegistryAuthInput) { updateRegistryAuth(input: $input) { id } }`, { input: { id, username: 'me', password } });
    expect((firstError(update) as TransportUnsupportedError).fields).toEqual(['Mutation.updateRegistryAuth']);
    expect(JSON.stringify(update)).not.toContain(password);
    expect((await runAccountDocument(rp, `mutation($id: String) { deleteRegistryAuth(registryAuthId: $id) }`, { id })).errors).toBeUndefined();
    expect((await runAccountDocument(rp, `{ myself { containerRegistryCreds { id } } }`)).data).toEqual({ myself: { containerRegistryCreds: [] } });
  });

  it('updateUserSettings { pubKey } replaces the SSH keys (PUT), and myself { pubKey } reads them one a line', async () => {
    const { rp, sent } = setup();
    expect((await runAccountDocument(rp, `{ myself { pubKey } }`)).data).toEqual({ myself: { pubKey: null } });
    sent.length = 0;
    const doc = `mutation($input: UpdateUserSettingsInput) { updateUserSettings(input: $input) { pubKey } }`;
    const result = await runAccountDocument(rp, doc, { input: { pubKey: `${KEY_ONE}\n\n${KEY_TWO}\n` } });
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ updateUserSettings: { pubKey: `${KEY_ONE}\n${KEY_TWO}` } });
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual(['PUT /v2/account/ssh-keys']);
    expect(await rp.rest.sshKeys.list()).toEqual([KEY_ONE, KEY_TWO]);
    expect((await runAccountDocument(rp, `{ myself { pubKey } }`)).data).toEqual({ myself: { pubKey: `${KEY_ONE}\n${KEY_TWO}` } });
    sent.length = 0;
    const bad = firstError(await runAccountDocument(rp, doc, { input: { pubKey: `${KEY_ONE}\nnot a key` } }));
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).field).toBe('input.pubKey');
    expect(sent).toEqual([]);
  });

  it('myself: each list is read once per document, whatever selects it; secrets carry names, never values', async () => {
    const { rp } = setup();
    await rp.rest.secrets.create({ name: 'HF_TOKEN', value: 'hf_secret_value_123456' });
    await rp.pods.deploy({ imageName: image, gpuTypeId: 'NVIDIA RTX A4000', cloudType: 'SECURE' });
    const doc = `{ a: myself { pods { id } podTemplates { id } secrets { name lastUpdatedAt } } b: myself { pods { id } podTemplates { name } secrets { id } networkVolumes { id } } }`;
    const result = await runAccountDocument(rp, doc);
    expect(result.errors).toBeUndefined();
    expect([...result.reads].sort()).toEqual(['GET /account/secrets', 'GET /network-volumes', 'GET /pods', 'GET /templates']);
    expect((result.data!.a as { secrets: unknown[] }).secrets).toEqual([{ name: 'HF_TOKEN', lastUpdatedAt: expect.any(String) }]);
    expect(JSON.stringify(result)).not.toContain('hf_secret_value_123456');
  });

  it("the README's own operation after the 410: myself { id clientBalance currentSpendPerHr } is null, one error per field naming it", async () => {
    const { rp, sent } = setup();
    const result = await runAccountDocument(rp, `query MyBalance { myself { id clientBalance currentSpendPerHr } }`);
    expect(result.data).toEqual({ myself: { id: null, clientBalance: null, currentSpendPerHr: null } });
    expect(result.errors?.map((e) => (e.originalError as TransportUnsupportedError).fields)).toEqual([['User.id'], ['User.clientBalance'], ['User.currentSpendPerHr']]);
    expect(sent).toEqual([]);
  });

  it("the README's MyBalance through rp.graphql.execute in process: the same nulls and errors, nothing sent", async () => {
    const { rp, sent } = setup();
    const result = await rp.graphql.execute(`query MyBalance { myself { id clientBalance currentSpendPerHr } }`);
    expect(result.data).toEqual({ myself: { id: null, clientBalance: null, currentSpendPerHr: null } });
    expect(result.errors?.map((e) => e.path)).toEqual([['myself', 'id'], ['myself', 'clientBalance'], ['myself', 'currentSpendPerHr']]);
    expect(sent).toEqual([]);
  });

  it('a create that fails ambiguously is never resent: saveRegistryAuth throws PossiblyCreatedError after one POST', async () => {
    const { rp, sent, emulator } = setup();
    emulator.faults.inject({ match: 'POST /v2/registries', fault: { type: 'drop-after-create' } });
    const result = await runAccountDocument(rp, `mutation { saveRegistryAuth(input: { name: "hub", username: "me", password: "pw-123456789" }) { id } }`);
    expect(firstError(result)).toBeInstanceOf(PossiblyCreatedError);
    expect(sent.filter((s) => s.method === 'POST' && s.path === '/v2/registries')).toHaveLength(1);
  });

  // The documents runpod-python's runpod.api functions send (inputs inline, its defaults included),
  // written here from its public behaviour.
  it("runpod-python's create_template and create_endpoint: every field they select is answered", async () => {
    const { rp } = setup();
    const template = await runAccountDocument(
      rp,
      `mutation { saveTemplate(input: { name: "py-tpl", imageName: "${image}", dockerArgs: "", containerDiskInGb: 10, volumeInGb: 0, ports: "", env: [], isServerless: true, containerRegistryAuthId : "", startSsh: true, isPublic: false, readme: "" }) {
        id name imageName dockerArgs containerDiskInGb volumeInGb volumeMountPath ports env { key value } isServerless } }`,
    );
    expect(template.errors).toBeUndefined();
    const tpl = template.data!.saveTemplate as { id: string };
    expect(tpl).toMatchObject({ name: 'py-tpl', imageName: image, containerDiskInGb: 10, volumeInGb: 0, volumeMountPath: null, ports: '', env: [], isServerless: true });
    const endpoint = await runAccountDocument(
      rp,
      `mutation { saveEndpoint(input: { name: "py-ep", templateId: "${tpl.id}", gpuIds: "AMPERE_16", networkVolumeId: "", locations: "", idleTimeout: 5, scalerType: "QUEUE_DELAY", scalerValue: 4, workersMin: 0, workersMax: 3 }) {
        id name templateId gpuIds networkVolumeId locations idleTimeout scalerType scalerValue workersMin workersMax } }`,
    );
    expect(endpoint.errors).toBeUndefined();
    expect(endpoint.data!.saveEndpoint).toMatchObject({
      name: 'py-ep', templateId: tpl.id, gpuIds: 'AMPERE_16', networkVolumeId: null, locations: null, idleTimeout: 5, scalerType: 'QUEUE_DELAY', scalerValue: 4, workersMin: 0, workersMax: 3,
    });
    // A listed endpoint does not name its template in REST v2: an error naming the field.
    const listed = await runAccountDocument(rp, `{ myself { endpoints { id templateId } } }`);
    expect((firstError(listed) as TransportUnsupportedError).fields).toEqual(['Endpoint.templateId']);
  });

  it("runpod-python's registry auth and user settings calls", async () => {
    const { rp } = setup();
    const saved = await runAccountDocument(rp, `mutation SaveRegistryAuth { saveRegistryAuth(input: {name: "hub", username: "me", password: "pw-123456789"}) { id name } }`);
    expect(saved.errors).toBeUndefined();
    const { id } = saved.data!.saveRegistryAuth as { id: string };
    expect((await runAccountDocument(rp, `mutation DeleteRegistryAuth { deleteRegistryAuth(registryAuthId: "${id}") }`)).errors).toBeUndefined();
    // update_user_settings selects id, which has no REST v2 source: the keys are replaced (a PUT, so
    // a retry is harmless) and id is null with its error.
    const settings = await runAccountDocument(rp, `mutation { updateUserSettings(input: { pubKey: "${KEY_ONE}" }) { id pubKey } }`);
    expect(settings.data).toEqual({ updateUserSettings: { id: null, pubKey: KEY_ONE } });
    expect(settings.errors?.map((e) => (e.originalError as TransportUnsupportedError).fields)).toEqual([['User.id']]);
    expect(await rp.rest.sshKeys.list()).toEqual([KEY_ONE]);
  });
});
