// `npm run bench -- --only=per-call --cpu-prof[=DIR]`: each per-call worker runs under V8's
// sampling profiler, and the bench prints where each variant's CPU went. Every sample is charged
// to the nearest frame of code that belongs to a variant (the built client in dist/, the
// reference client, graphql-request, the worker's own bare-fetch calls); what the runtime does
// on their behalf (fetch, timers, body reading) counts against the frame that asked for it.
// Samples with no such frame on their stack are the runtime's alone: the collector, undici's
// callbacks after a socket read, idle time.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Code that belongs to a variant, and how its frames are named in the summary. */
const OWNERS: ReadonlyArray<readonly [RegExp, string]> = [
  // The package's build, not a dependency's (tsx's loader lives in node_modules/tsx/dist).
  [/^(?!.*node_modules).*\/dist\/(.+)$/, 'dist/$1'],
  [/node_modules\/graphql-request\/build\/(.+)$/, 'graphql-request/$1'],
  [/test\/bench\/(reference-client|per-call-worker)\.ts$/, '$1'],
];

function ownerOf(frame: ProfileNode['callFrame']): string | undefined {
  for (const [pattern, name] of OWNERS) {
    const match = pattern.exec(frame.url);
    if (match) return `${frame.functionName || '(anonymous)'} ${match[0].replace(pattern, name)}:${frame.lineNumber + 1}`;
  }
  return undefined;
}

export interface ProfileRow {
  readonly frame: string;
  /**
   * This frame's share of the samples that ran JavaScript or the collector. A share, not a time:
   * V8 charges a sample the wall time since the one before, so a process that was descheduled on
   * a busy machine shows inflated times, while the shares stay comparable between variants.
   */
  readonly share: number;
}

/** The `top` frames of every profile in `dir`, by their share of the process's CPU samples (start-up included). */
export function summariseProfiles(dir: string, top = 8): ProfileRow[] {
  const totals = new Map<string, number>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
    // A node's owner, found once per node rather than once per sample.
    const owners = new Map<number, string>();
    const owner = (id: number): string => {
      const known = owners.get(id);
      if (known) return known;
      const node = byId.get(id)!;
      const up = parent.get(id);
      // Charged to the outermost runtime function when no variant's frame asked for the work
      // (a socket read, a timer's callback): the root's child.
      const name = ownerOf(node.callFrame) ?? (up === undefined || parent.get(up) === undefined ? `(runtime) ${node.callFrame.functionName || '(anonymous)'}` : owner(up));
      owners.set(id, name);
      return name;
    };
    profile.samples.forEach((id, i) => {
      // A sample at the root itself ran no JavaScript: the thread was waiting.
      if (parent.get(id) === undefined) return;
      const leaf = byId.get(id)!.callFrame.functionName;
      // The collector, idle time and V8's own work have no JS stack: name them as V8 does.
      const name = leaf.startsWith('(') ? `(runtime) ${leaf}` : owner(id);
      totals.set(name, (totals.get(name) ?? 0) + profile.timeDeltas[i]!);
    });
  }
  totals.delete('(runtime) (idle)');
  const all = [...totals.values()].reduce((sum, us) => sum + us, 0);
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, us]) => ({ frame, share: us / all }));
}
