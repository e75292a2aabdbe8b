// The operator's lossy switch: with nullForNoSource (--null-for-no-source), a nullable field REST
// v2 has no source for is null with no error, and logged once; without it, the error names it.
import { describe, expect, it } from 'vitest';
import { parseGatewayArgs } from '../../src/gateway/node.js';
import { bearer, READ_TOKEN, startRig } from './harness.js';

// GpuType.throughput is decisive (no source, an error); GpuType.cudaCores informational (a warning).
const DOC = '{ myself { pods { id } } gpuTypes(input: { id: "NVIDIA RTX A4000" }) { id throughput cudaCores } }';
type Body = { data: { gpuTypes: Array<{ throughput: unknown; cudaCores: unknown }> }; errors?: Array<{ message: string }>; extensions?: { warnings?: Array<{ field: string; reason: string }> } };

describe('--null-for-no-source', () => {
  it('off (the default): each decisive field with no source is an error naming it; an informational one a warning, no error', async () => {
    const rig = await startRig();
    try {
      const res = await rig.post({ query: DOC }, bearer(READ_TOKEN));
      const body = (await res.json()) as Body;
      expect(body.errors?.map((e) => e.message).join(' ')).toContain('GpuType.throughput');
      expect(body.errors?.map((e) => e.message).join(' ')).not.toContain('GpuType.cudaCores');
      expect(body.data.gpuTypes[0]!.cudaCores).toBeNull();
      expect(body.extensions?.warnings).toEqual([{ field: 'GpuType.cudaCores', reason: expect.stringContaining('CUDA core') }]);
    } finally {
      await rig.close();
    }
  });

  it('on: decisive nullable fields too are null with no error, named in the warnings, and each is logged once', async () => {
    const lines: string[] = [];
    const logger = { error: () => {}, warn: (m: string) => lines.push(m), info: () => {}, debug: () => {} };
    const rig = await startRig({ nullForNoSource: true, client: { logger } });
    try {
      for (let i = 0; i < 2; i++) {
        const res = await rig.post({ query: DOC }, bearer(READ_TOKEN));
        const body = (await res.json()) as Body;
        expect(res.status).toBe(200);
        expect(body.errors).toBeUndefined();
        expect(body.data.gpuTypes[0]).toMatchObject({ throughput: null, cudaCores: null });
        expect(body.extensions?.warnings?.map((w) => w.field)).toEqual(['GpuType.cudaCores', 'GpuType.throughput']);
      }
      expect(lines.filter((l) => l.includes('GpuType.throughput'))).toHaveLength(1);
    } finally {
      await rig.close();
    }
  });

  it('is a flag', () => {
    expect(parseGatewayArgs(['--null-for-no-source']).nullForNoSource).toBe(true);
    expect(parseGatewayArgs([]).nullForNoSource).toBe(false);
  });
});
