// Writes the field map's tables into the component READMEs (`write`), or fails when one is stale
// (`check`). Run by `npm run codegen` and `npm run codegen:check`.
import { readFileSync, writeFileSync } from 'node:fs';
import { generatedBlocks, withBlock } from '../field-map/docs-table.js';
import { PodFieldsFragmentDoc } from '../graphql/__generated__/operations.js';

const mode = process.argv[2] ?? 'write';
let stale = 0;
for (const { file, name, block } of generatedBlocks(PodFieldsFragmentDoc.toString())) {
  const text = readFileSync(file, 'utf8');
  const next = withBlock(text, name, block);
  if (next === undefined) throw new Error(`${file}: no field-map:${name} markers`);
  if (next === text) continue;
  if (mode === 'check') {
    console.error(`${file}: the field-map:${name} table is stale; run npm run codegen`);
    stale++;
  } else writeFileSync(file, next);
}
if (stale) process.exit(1);
