// One built schema per process is shared by every executor (the emulator, the gateway, each
// client's in-process executor). An executor's resolvers hold its own client, so they must never
// be set on that shared schema: a second client would answer the first one's documents with its
// own key, and the emulator would answer with the in-process resolvers.
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import { createRunpodClient } from '../../src/index.js';

describe('the shared schema', () => {
  it("two clients' documents in process each read their own account, and the emulator's GraphQL keeps its own answers", async () => {
    const emulator = createEmulator({ apiKeys: ['rpa_shared_schema_owner_a_0000000000', 'rpa_shared_schema_owner_b_0000000000'] });
    try {
      const base = emulator.clientOptions();
      const a = createRunpodClient({ ...base, apiKey: 'rpa_shared_schema_owner_a_0000000000', graphqlTransport: 'rest' });
      const b = createRunpodClient({ ...base, apiKey: 'rpa_shared_schema_owner_b_0000000000', graphqlTransport: 'rest' });
      const viaGraphQL = createRunpodClient({ ...base, apiKey: 'rpa_shared_schema_owner_a_0000000000', graphqlTransport: 'graphql' });
      const mine = await a.pods.deploy({ name: 'a-pod', imageName: 'ubuntu:24.04', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1 });
      const list = '{ myself { pods { id name } } }';
      // B's executor is made after A's: with resolvers on the shared schema, B's would answer A.
      await a.graphql.execute(list);
      expect((await b.graphql.execute(list)).data).toEqual({ myself: { pods: [] } });
      expect((await a.graphql.execute(list)).data).toEqual({ myself: { pods: [{ id: mine.id, name: 'a-pod' }] } });
      // The emulator answers what production's GraphQL has beyond REST v2 (the machine's id).
      const pod = await viaGraphQL.pods.get(mine.id);
      expect(pod?.machineId).not.toBe('');
    } finally {
      emulator.dispose();
    }
  });
});
