export interface Snippet {
  /** 1-based line of the block's first code line in the markdown. */
  readonly line: number;
  readonly code: string;
}

const MARKER = '<!-- run -->';

/** The ```ts blocks that have `<!-- run -->` on the line right above their opening fence. */
export function taggedSnippets(markdown: string): Snippet[] {
  const lines = markdown.split('\n');
  const snippets: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== MARKER || lines[i + 1]?.trim() !== '```ts') continue;
    const end = lines.findIndex((l, j) => j > i + 1 && l.trim() === '```');
    if (end < 0) continue;
    snippets.push({ line: i + 3, code: `${lines.slice(i + 2, end).join('\n')}\n` });
    i = end;
  }
  return snippets;
}
