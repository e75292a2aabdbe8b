// The docs' tables, made from the field map (never written by hand): what is answered after
// GraphQL's 410, type by type, and what rp.pods' REST path answers differently. Written between
// markers in src/graphql/README.md and src/pods/README.md by `npm run codegen`; a test fails when
// they are stale.
import { FIELD_MAP } from './index.js';
import { fragmentSelection, type Selection } from './projection.js';
import { FIELD_REASONS } from './reasons.js';
import type { FieldEntry } from './types.js';

const code = (text: string) => `\`${text}\``;
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** Why `coordinate`'s row holds (reasons.ts); a derived, decisive or stand-in row without one is an error. */
function reasonOf(coordinate: string): string {
  const reason = FIELD_REASONS[coordinate];
  if (reason === undefined) throw new Error(`field map: ${coordinate} has no reason in src/field-map/reasons.ts`);
  return reason;
}

/** One entry's source as the docs print it (`coordinate`, `Type.field`, finds its reason). */
export function describeSource(entry: FieldEntry, coordinate = ''): string {
  const { source } = entry;
  switch (source.kind) {
    case 'path':
      return code(source.path);
    case 'derived':
      return `derived${source.reads.length ? ` from ${source.reads.map(code).join(', ')}` : ''}: ${reasonOf(coordinate)}`;
    case 'call':
      return `its own call: ${source.routes.map(code).join(', ')}`;
    case 'read':
      return `${code(source.path)} of ${code(source.route)} (read once per document)`;
    case 'none':
      if (source.standIn) return `no source, answered ${code(JSON.stringify(source.standIn.value))}: ${reasonOf(coordinate)}`;
      return source.effect === 'informational'
        ? `no source, *informational* (null and a warning in \`extensions.warnings\`, no error): ${source.why}`
        : `**no source, decisive** (null and an error): ${reasonOf(coordinate)}`;
  }
}

/** The types the table covers, in the order given (Query and Mutation first, then each module's). */
export function answeredTable(types: readonly string[] = Object.keys(FIELD_MAP)): string {
  const rows = ['| field | source | scope |', '|---|---|---|'];
  for (const type of types) {
    const map = FIELD_MAP[type];
    if (!map) continue;
    for (const [field, entry] of Object.entries(map.fields)) rows.push(`| ${code(`${type}.${field}`)} | ${cell(describeSource(entry, `${type}.${field}`))} | ${entry.scope ?? map.scope} |`);
  }
  return rows.join('\n');
}

/** The fields of `selection` (of type `type`) that rp.pods answers other than as a plain REST path. */
export function lossyTable(type: string, selection: Selection): string {
  const rows = ['| field | over REST v2 |', '|---|---|'];
  const walk = (on: string, sel: Selection, prefix: string) => {
    for (const [field, sub] of Object.entries(sel)) {
      const entry = FIELD_MAP[on]?.fields[field];
      if (!entry) continue;
      const kind = entry.source.kind;
      if (kind === 'derived' || kind === 'none') rows.push(`| ${code(`${prefix}${field}`)} | ${cell(describeSource(entry, `${on}.${field}`))} |`);
      if (sub !== true && entry.type) walk(entry.type, sub, `${prefix}${field}.`);
    }
  };
  walk(type, selection, `${type}.`);
  return rows.join('\n');
}

/** Markers around a generated block in a README. */
export const marker = (name: string) => ({ start: `<!-- field-map:${name}:start (made by npm run codegen from src/field-map/) -->`, end: `<!-- field-map:${name}:end -->` });

/** `text` with the block between `name`'s markers replaced by `block`; undefined when the markers are missing. */
export function withBlock(text: string, name: string, block: string): string | undefined {
  const { start, end } = marker(name);
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) return undefined;
  return `${text.slice(0, a + start.length)}\n${block}\n${text.slice(b)}`;
}

/** The generated blocks, by README path (relative to the project) and marker name. */
export function generatedBlocks(podFieldsDocument: string): Array<{ file: string; name: string; block: string }> {
  return [
    { file: 'src/graphql/README.md', name: 'answered', block: answeredTable() },
    { file: 'src/pods/README.md', name: 'pod-lossy', block: lossyTable('Pod', fragmentSelection(podFieldsDocument, 'PodFields')) },
  ];
}
