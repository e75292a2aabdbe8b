// The text a persisted document stands for, and its hash: one operation with the fragments it
// spreads (followed through fragments), sorted by name and printed by graphql-js. codegen.ts puts
// the hash on each generated document and the persisted-documents plugin writes the same pairs,
// so the two cannot disagree on how a document is spelt.
import { createHash } from 'node:crypto';
import { Kind, print, visit, type DefinitionNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';

export function persistedText(operation: OperationDefinitionNode, fragments: readonly DefinitionNode[]): string {
  const byName = new Map(fragments.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
  const used = new Map<string, FragmentDefinitionNode>();
  const follow = (node: OperationDefinitionNode | FragmentDefinitionNode) =>
    visit(node, {
      FragmentSpread(spread) {
        const name = spread.name.value;
        const fragment = byName.get(name);
        if (!fragment || used.has(name)) return;
        used.set(name, fragment);
        follow(fragment);
      },
    });
  follow(operation);
  const definitions = [operation, ...[...used.values()].sort((a, b) => a.name.value.localeCompare(b.name.value))];
  return print({ kind: Kind.DOCUMENT, definitions });
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');
