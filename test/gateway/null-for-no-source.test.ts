// The operator's lossy switch: with nullForNoSource (--null-for-no-source), a nullable field REST
// v2 has no source for is null with no error, and logged once; without it, the error names it.
import { describe, expect, it } from 'vitest';
import { parseGatewayArgs } from '../../src/gateway/node.js';
import { bearer, READ_TOKEN, startRig } from './harness.js';

const DOC = '{ myself { pods { id dockerId } } gpuTypes(input: { id: "NVIDIA RTX A4000" }) { id cudaCores } }';

describe('--null-for-no-source', () => {
  it('off (the default): each field with no source is an error naming it', async () => {
    const rig = await startRig();
    try {
      const res = await rig.post({ query: DOC }, bearer(READ_TOKEN));
      const body = (await res.json()) as { errors?: Array<{ message: string }> };
      expect(body.errors?.map((e) => e.message).join(' ')).toContain('GpuType.cudaCores');
    } finally {
      await rig.close();
    }
  });

  it('on: such nullable fields are null with no error, and each is logged once', async () => {
    const lines: string[] = [];
    const logger = { error: () => {}, warn: (m: string) => lines.push(m), info: () => {}, debug: () => {} };
    const rig = await startRig({ nullForNoSource: true, client: { logger } });
    try {
      for (let i = 0; i < 2; i++) {
        const res = await rig.post({ query: DOC }, bearer(READ_TOKEN));
        const body = (await res.json()) as { data: { gpuTypes: Array<{ cudaCores: unknown }> }; errors?: unknown };
        expect(res.status).toBe(200);
        expect(body.errors).toBeUndefined();
        expect(body.data.gpuTypes[0]!.cudaCores).toBeNull();
      }
      expect(lines.filter((l) => l.includes('GpuType.cudaCores'))).toHaveLength(1);
    } finally {
      await rig.close();
    }
  });

  it('is a flag', () => {
    expect(parseGatewayArgs(['--null-for-no-source']).nullForNoSource).toBe(true);
    expect(parseGatewayArgs([]).nullForNoSource).toBe(false);
  });
});
