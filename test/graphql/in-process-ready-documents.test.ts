// rp.graphql.request in process keeps a valid document's parse and static pass per document
// (route.ts): a repeated document runs as the first did, and what is refused is refused every time,
// never served from another document's entry.
import { describe, expect, it } from 'vitest';
import { GraphQLResponseError, TransportUnsupportedError } from '../../src/index.js';
import { captureError } from '../helpers.js';
import { recordingClient } from '../recording-client.js';

const image = 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04';

describe('in-process documents, repeated', () => {
  it('a repeated document reads each time; refused documents stay refused, each with its own error', async () => {
    const { rp, sent } = recordingClient({}, { graphqlTransport: 'rest' });
    const deployed = await rp.graphql.request('mutation($input: PodFindAndDeployOnDemandInput) { podFindAndDeployOnDemand(input: $input) { id } }', {
      input: { name: 'a', imageName: image, gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, cloudType: 'SECURE' },
    });
    const podId = (deployed as { podFindAndDeployOnDemand: { id: string } }).podFindAndDeployOnDemand.id;
    const read = 'query($input: PodFilter) { pod(input: $input) { id name } }';
    for (let i = 0; i < 3; i++) {
      const before = sent.length;
      expect(((await rp.graphql.request(read, { input: { podId } })) as { pod: { id: string } }).pod.id).toBe(podId);
      expect(sent.length).toBe(before + 1);
    }
    for (let i = 0; i < 2; i++) {
      const before = sent.length;
      const noSource = await captureError(rp.graphql.request('query { myself { clientBalance } }'));
      expect(noSource).toBeInstanceOf(TransportUnsupportedError);
      expect((noSource as TransportUnsupportedError).fields).toEqual(['User.clientBalance']);
      const invalid = await captureError(rp.graphql.request('query { pod(input: { podId: "x" }) { noSuchField } }'));
      expect(invalid).toBeInstanceOf(GraphQLResponseError);
      expect((invalid as Error).message).toContain('noSuchField');
      expect(sent.length).toBe(before);
    }
  });
});
