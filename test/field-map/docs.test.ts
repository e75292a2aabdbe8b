// The docs' tables come from the field map: the blocks in src/graphql/README.md ("Answered after
// the 410") and src/pods/README.md ("What REST v2 carries differently") are what the map makes now.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedBlocks, withBlock } from '../../src/field-map/docs-table.js';
import { PodFieldsFragmentDoc } from '../../src/graphql/__generated__/operations.js';

describe("the docs' tables from the field map", () => {
  for (const { file, name, block } of generatedBlocks(PodFieldsFragmentDoc.toString())) {
    it(`${file} (${name}) is up to date (npm run codegen writes it)`, () => {
      const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
      expect(withBlock(text, name, block), `${file} has the field-map:${name} markers`).toBeDefined();
      expect(withBlock(text, name, block)).toBe(text);
    });
  }

  it('lists every mapped field with its scope, and says where a field has no source', () => {
    const text = readFileSync(new URL('../../src/graphql/README.md', import.meta.url), 'utf8');
    expect(text).toContain('| `Pod.containerDiskInGb` | `disk` | read |');
    expect(text).toContain('| `Pod.env` | derived from `env`');
    expect(text).toMatch(/\| `Pod.dockerId` \| no source, \*informational\* \(null and a warning in `extensions.warnings`, no error\): REST v2 has no container id \| read \|/);
    expect(text).toMatch(/\| `PodMachineInfo.gpuAvailable` \| \*\*no source, decisive\*\* \(null and an error\): /);
    expect(text).toContain('| `GpuType.securePrice` | `price.secure` | catalog |');
  });
});
