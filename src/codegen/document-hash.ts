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

/**
 * A document's id: the first 16 hex digits (64 bits) of the SHA-256 of its text. Ample to tell a
 * package's documents apart, and each id costs every bundle of `runpod-gql/graphql` its bytes
 * (the whole hash would take that entry past its 1 KB budget). A gateway finds a document by this
 * id, or by the whole hash of its text (Apollo's `sha256Hash`).
 */
export const documentIdOf = (text: string): string => sha256Hex(text).slice(0, 16);
