// A REST v2 object projected through the field map onto a fixed selection (a fragment of the
// package's own operations), without graphql-js: how rp.pods' REST path builds its `PodFields`
// answers, so a field is mapped once, in the map, for the executor and for rp.pods alike.
import { DERIVATIONS, FIELD_MAP } from './index.js';
import { readPath, type FieldEntry, type RestObject } from './types.js';

/** `field` → true for a leaf, or the selection of the object it holds. */
export interface Selection {
  readonly [field: string]: Selection | true;
}

const TOKEN = /[_A-Za-z][_0-9A-Za-z]*|\.\.\.|[{}]|#[^\n]*/g;

/**
 * The selection set of `fragment <name>` in a document's text. The package's own fragments are
 * plain field selections (no arguments, aliases, directives or spreads), and anything else is
 * refused here, so a fragment codegen changes cannot be projected wrongly.
 */
export function fragmentSelection(document: string, name: string): Selection {
  const tokens = (document.match(TOKEN) ?? []).filter((t) => !t.startsWith('#'));
  const at = tokens.findIndex((t, i) => t === 'fragment' && tokens[i + 1] === name);
  if (at < 0 || tokens[at + 4] !== '{') throw new Error(`fragment ${name} not found`);
  let i = at + 5;
  const read = (): Selection => {
    const fields: Record<string, Selection | true> = {};
    while (i < tokens.length) {
      const token = tokens[i++]!;
      if (token === '}') return fields;
      if (token === '{' || token === '...') throw new Error(`fragment ${name}: only plain fields can be projected`);
      if (tokens[i] === '{') {
        i++;
        fields[token] = read();
      } else fields[token] = true;
    }
    throw new Error(`fragment ${name}: unbalanced braces`);
  };
  return read();
}

function entryOf(type: string, field: string): FieldEntry {
  const entry = FIELD_MAP[type]?.fields[field];
  if (!entry) throw new Error(`${type}.${field} is not in the field map`);
  return entry;
}

/** One field's value from its parent's REST object, as the map says (a `call` has none here). */
export function valueOf(type: string, field: string, entry: FieldEntry, parent: RestObject): unknown {
  const { source } = entry;
  switch (source.kind) {
    case 'path':
      return readPath(parent, source.path);
    case 'derived': {
      const derive = DERIVATIONS[source.derive];
      if (!derive) throw new Error(`${type}.${field}: no derivation named ${source.derive}`);
      return derive(parent);
    }
    case 'none':
      return source.standIn ? source.standIn.value : null;
    case 'call':
    case 'read':
      throw new Error(`${type}.${field} needs a call of its own: it cannot be projected`);
  }
}

/**
 * `rest` as `selection` of GraphQL type `type`. Throws WrongRestShape (from a derivation) when the
 * answer has the wrong shape; the caller checks the shape of what it relies on first.
 */
export function project(type: string, rest: RestObject, selection: Selection): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, sub] of Object.entries(selection)) {
    const entry = entryOf(type, field);
    const value = valueOf(type, field, entry, rest) ?? null;
    if (sub === true || value === null) {
      out[field] = value;
      continue;
    }
    const child = entry.type;
    if (!child) throw new Error(`${type}.${field} holds objects but the map names no type`);
    out[field] = Array.isArray(value)
      ? value.map((item) => (item && typeof item === 'object' ? project(child, item as RestObject, sub) : null))
      : project(child, value as RestObject, sub);
  }
  return out;
}
