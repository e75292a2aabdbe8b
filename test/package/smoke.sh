#!/usr/bin/env bash
# Packs the package, installs the tarball into fresh ESM and TypeScript projects, imports every
# entry, type-checks a typed call and runs it against the emulator on 127.0.0.1.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tarball="$(cd "$root" && npm pack --silent --pack-destination "$work" | tail -n 1)"
tsversion="$(node -p "require('$root/node_modules/typescript/package.json').version")"
install() { npm install --no-audit --no-fund --prefer-offline --loglevel=error "$@" >/dev/null; }

mkdir "$work/esm" && cd "$work/esm"
echo '{ "name": "smoke-esm", "private": true, "type": "module" }' > package.json
install "$work/$tarball"
# What the tarball ships besides dist/: the licence and the schema for users' own codegen; and no
# install-time script (the build runs at pack time), so installing it warns about nothing.
test -f node_modules/runpod-gql/LICENSE
test -f node_modules/runpod-gql/schema.graphql
node -e 'const s = require("runpod-gql/package.json").scripts ?? {}; for (const k of ["preinstall", "install", "postinstall", "prepare"]) if (s[k]) { console.error(`tarball has a ${k} script`); process.exit(1); }'
cat > index.js <<'JS'
import { createRunpodClient, CapacityUnavailableError } from 'runpod-gql';
import { PodDocument } from 'runpod-gql/graphql';
import { createRunpodRestClient } from 'runpod-gql/rest';
import { createRunpodServerlessClient } from 'runpod-gql/serverless';
import { createEmulator } from 'runpod-gql/emulator';
import { listen } from 'runpod-gql/emulator/node';
const server = await listen(createEmulator());
try {
  const rp = createRunpodClient(server.clientOptions());
  const offers = await rp.gpuTypes.offers({ gpuCount: 1 });
  const pod = await rp.pods.deploy({ imageName: 'img', gpuTypeId: offers[0].gpuTypeId, gpuCount: 1 });
  const { pod: same } = await rp.graphql.request(PodDocument, { input: { podId: pod.id } });
  const rest = await createRunpodRestClient(server.clientOptions()).pods.get(pod.id);
  const job = await createRunpodServerlessClient(server.clientOptions()).endpoint('echo').runSync({ ok: 1 });
  if (same.id !== pod.id || rest.id !== pod.id || job.output.ok !== 1 || typeof CapacityUnavailableError !== 'function') throw new Error('smoke mismatch');
  console.log(`esm ok: ${offers.length} offers, pod ${pod.id}`);
} finally {
  await server.close();
}
JS
node index.js

mkdir "$work/ts" && cd "$work/ts"
echo '{ "name": "smoke-ts", "private": true, "type": "module" }' > package.json
install "$work/$tarball" "typescript@$tsversion"
cat > tsconfig.json <<'JSON'
{ "compilerOptions": { "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true, "outDir": "out", "lib": ["ES2023", "DOM"], "types": [], "skipLibCheck": false } }
JSON
cat > index.ts <<'TS'
import { createRunpodClient, type Pod } from 'runpod-gql';
import { createEmulator } from 'runpod-gql/emulator';
import { listen } from 'runpod-gql/emulator/node';
const server = await listen(createEmulator());
const rp = createRunpodClient(server.clientOptions());
const pod: Pod = await rp.pods.deploy({ imageName: 'img', gpuTypeId: 'NVIDIA RTX A4000', gpuCount: 1, cloudType: 'SECURE' });
const status: 'RUNNING' | 'EXITED' | 'CREATED' | 'RESTARTING' | 'PAUSED' | 'DEAD' | 'TERMINATED' = pod.desiredStatus;
// Type-checked only, never called:
export const rejected = () =>
  // @ts-expect-error cloudType is an enum
  rp.pods.deploy({ imageName: 'img', gpuTypeId: 'x', gpuCount: 1, cloudType: 'EVERYWHERE' });
const ep = rp.endpoint<{ n: number }, { n: number }>('echo');
const done = await ep.runSync({ n: 2 });
const doubled: number = done.output.n * 2;
console.log(`ts ok: ${status} ${doubled}`);
await server.close();
TS
npx tsc -p tsconfig.json
node out/index.js
