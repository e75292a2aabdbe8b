import { resolve } from 'node:path';
import { parseDependencyTree, type DependencyTree } from 'dpdm';
import { describe, expect, it } from 'vitest';

// The import graph of src/ (static, dynamic `import()`, `import type` and `typeof import()` alike:
// a type-only import still says which module stands on which) has no circle but these. Each is a
// lazy seam: a module loaded by `import()` on first use reads types from the module that loads it,
// which the build erases, so the start-up chunk stays small. DESIGN.md, "Lazy seams", names the rule.
// A circle joins this list only with a line there; one that goes away leaves it.
const ALLOWED_CIRCLES: readonly (readonly string[])[] = [
  ['src/rest/log-stream.ts', 'src/rest/logs.ts'],
  ['src/rest/page-walk.ts', 'src/rest/pager.ts'],
  ['src/serverless/openai-fetch.ts', 'src/serverless/openai.ts'],
  ['src/serverless/queue-calls.ts', 'src/serverless/queue.ts'],
  ['src/transport/after-answer-loader.ts', 'src/transport/after-answer.ts', 'src/transport/http-core.ts'],
  ['src/transport/create-once-kit.ts', 'src/transport/create-once.ts'],
];

/** The circles of a graph: its strongly connected components of more than one file, or a file that imports itself (Tarjan). */
export function importCircles(tree: DependencyTree): string[][] {
  const edges = new Map<string, string[]>();
  for (const [file, deps] of Object.entries(tree)) {
    edges.set(file, (deps ?? []).flatMap((d) => (d.id && d.id in tree ? [d.id] : [])));
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const to of edges.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || edges.get(file)!.includes(file)) circles.push(component.sort());
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return circles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

const root = resolve(import.meta.dirname, '../..');

describe('import circles under src/', () => {
  it('are only the lazy seams DESIGN.md names', async () => {
    const tree = await parseDependencyTree('src/**/*.ts', { context: root, cwd: root, transform: false, include: /\/src\//, exclude: /node_modules/ });
    expect(Object.keys(tree).length).toBeGreaterThan(150);
    const circles = importCircles(tree);
    expect(circles.filter((c) => c.some((file) => file.startsWith('src/emulator/')))).toEqual([]);
    expect(circles).toEqual(ALLOWED_CIRCLES);
  });

  it('the walker reports a circle of three once, and not what only hangs off it', () => {
    const dep = (issuer: string, id: string) => ({ issuer, request: id, kind: 0 as never, id });
    const tree: DependencyTree = {
      'src/a.ts': [dep('src/a.ts', 'src/b.ts')],
      'src/b.ts': [dep('src/b.ts', 'src/c.ts')],
      'src/c.ts': [dep('src/c.ts', 'src/a.ts')],
      'src/d.ts': [dep('src/d.ts', 'src/a.ts'), dep('src/d.ts', 'node_modules/x/index.js')],
    };
    expect(importCircles(tree)).toEqual([['src/a.ts', 'src/b.ts', 'src/c.ts']]);
  });
});
