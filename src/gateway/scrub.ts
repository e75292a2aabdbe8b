// The one place the gateway builds a scrubber from its secrets: the upstream key, the tokens, in
// pass-through mode the caller's own key, and each document's own secret inputs (a registry
// password, a secret's value, env values). Answers are scrubbed with these and with what the process
// owns (its key, its tokens), never with strings another caller brought. A document's upstream
// details (its errors, its request ids) are also scrubbed of the env values it READ (ValuesRead).
import {
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  TypeInfo,
  valueFromAST,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { createScrubber, foldedUnits, REDACTED, SECRET_WINDOW, SecretScope, withScope } from '../transport/redact.js';
import { UPSTREAM_DETAIL, type GatewayAnswer, type RequestIds } from './answers.js';

/** Removes every spelling the redactor knows of a set of secrets from a text. */
export type Scrub = (text: string) => string;

export const noScrub: Scrub = (text) => text;

/** The scrubber for `secrets` (empty ones skipped): one matcher and one pass over the text, however many. */
export function scrubberOf(secrets: readonly (string | undefined)[]): Scrub {
  return secrets.some((s) => !!s) ? createScrubber(secrets) : noScrub;
}

/**
 * Shortest secret input a document's scrubber files. The whole answer is scrubbed, JSON and all:
 * a 4-character env value (`true`, `8080`) would turn every such token of it into `[REDACTED]`.
 */
export const MIN_DOCUMENT_SECRET_CHARS = 8;

/** An input field (or argument) whose name says it holds a secret: everything under it is filed. */
const SECRET_INPUT = /pass(word|phrase)|secret|token|api_?key|private_?key|access_?key|credential/i;
/** An input field whose strings are env values (`env: [EnvironmentVariableInput]`, `env: [String]`). */
const ENV_INPUT = /env$/i;

/** Files every string of `value` (of input type `type`) that a secret-bearing name holds. */
function fileInput(scope: SecretScope, value: unknown, type: GraphQLInputType, under: 'secret' | 'env' | undefined): void {
  if (value === null || value === undefined) return;
  if (isNonNullType(type)) return fileInput(scope, value, type.ofType, under);
  if (isListType(type)) {
    if (Array.isArray(value)) for (const item of value) fileInput(scope, item, type.ofType, under);
    return;
  }
  if (typeof value === 'string') {
    if (under) scope.add(value);
    return;
  }
  const named = getNamedType(type);
  if (!isInputObjectType(named) || typeof value !== 'object') return;
  const fields = named.getFields();
  for (const [name, item] of Object.entries(value as Record<string, unknown>)) {
    const field = fields[name];
    if (!field) continue;
    // An env entry's key (`MODEL`) is no secret; its value is.
    // A secret's `value` (SecretCreateInput, SecretValueUpdateInput) is one, not its name.
    const secret = under === 'secret' || SECRET_INPUT.test(name) || (name === 'value' && /secret/i.test(named.name));
    const next = secret ? 'secret' : under === 'env' ? (name === 'key' ? undefined : 'env') : ENV_INPUT.test(name) ? 'env' : undefined;
    fileInput(scope, item, field.type, next);
  }
}

/**
 * The scope of one document's secret inputs: every string its arguments hold under a secret-bearing
 * name (`password`, `secret`, `token`, …, a secret's `value`, an env value), read from the coerced
 * variables and the document's literals alike. Filed only once the variables passed their checks,
 * and dropped with the document.
 */
export function documentSecrets(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown>): SecretScope | undefined {
  // Most documents take no argument that can hold a secret: known once per document, they cost nothing more.
  let may = mayHoldSecrets.get(operation);
  if (may === undefined) mayHoldSecrets.set(operation, (may = argumentsMayHoldSecrets(schema, document, operation)));
  if (!may) return undefined;
  const scope = new SecretScope({ minChars: MIN_DOCUMENT_SECRET_CHARS });
  const info = new TypeInfo(schema);
  const walk = (node: DocumentNode | OperationDefinitionNode) =>
    visit(
      node,
      visitWithTypeInfo(info, {
        Argument(arg) {
          const def = info.getArgument();
          if (!def) return false;
          const value = valueFromAST(arg.value, def.type, variables);
          const under = SECRET_INPUT.test(arg.name.value) ? 'secret' : ENV_INPUT.test(arg.name.value) ? 'env' : undefined;
          fileInput(scope, value, def.type, under);
          return false;
        },
      }),
    );
  walk(operation);
  // Arguments inside fragments: each fragment walked once, whichever spreads use it.
  for (const definition of document.definitions) if (definition.kind === 'FragmentDefinition') walk({ ...document, definitions: [definition] });
  return scope;
}

const mayHoldSecrets = new WeakMap<OperationDefinitionNode, boolean>();
const typeMayHold = new Map<string, boolean>();

/** An input type that can hold a secret input: a secret-bearing or env field anywhere inside it. */
function inputMayHold(type: GraphQLInputType): boolean {
  const named = getNamedType(type);
  if (!isInputObjectType(named)) return false;
  let known = typeMayHold.get(named.name);
  if (known !== undefined) return known;
  // Assumed not while it is being looked at: a type that holds itself adds nothing to what it holds.
  typeMayHold.set(named.name, false);
  known = Object.values(named.getFields()).some((f) => SECRET_INPUT.test(f.name) || ENV_INPUT.test(f.name) || (f.name === 'value' && /secret/i.test(named.name)) || inputMayHold(f.type));
  typeMayHold.set(named.name, known);
  return known;
}

/** Whether any argument of the operation (or its fragments) can hold a secret input. */
function argumentsMayHoldSecrets(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): boolean {
  let found = false;
  const info = new TypeInfo(schema);
  const look = (node: DocumentNode | OperationDefinitionNode) =>
    visit(
      node,
      visitWithTypeInfo(info, {
        Argument(arg) {
          const def = info.getArgument();
          if (def && (SECRET_INPUT.test(arg.name.value) || ENV_INPUT.test(arg.name.value) || inputMayHold(def.type))) found = true;
          return false;
        },
      }),
    );
  look(operation);
  for (const definition of document.definitions) if (!found && definition.kind === 'FragmentDefinition') look({ ...document, definitions: [definition] });
  return found;
}

/** `scrub` with a scope's secrets too, in the same pass: what the scope files later counts. */
export function withDocument(scrub: Scrub, scope: SecretScope): Scrub {
  return scrub === noScrub ? (text) => scope.scrub(text) : withScope(scrub, scope);
}

/**
 * Most characters of env values one document files from what it read: past them the rest is not
 * filed, and RunPod's words after an HTTP status are withheld from its errors instead.
 */
export const MAX_VALUES_READ_CHARS = 65_536;
/** Most upstream answers one document keeps to look through (its page and call caps come first). */
const MAX_ANSWERS_KEPT = 2_048;
/** A name under which an upstream answer holds env values (`env`, `defaultEnv`) or a secret (`aiKey`, `password`). */
const READ_SECRET = new RegExp(`env$|ai_?key|${SECRET_INPUT.source}`, 'i');

/**
 * What one document read upstream that can hold env values: each REST v2 answer its calls parsed
 * (told under ANSWERS_READ), and its result's data (RunPod's GraphQL). A pod's env comes back with
 * the pod whether the document asked for it or not, and an upstream's later 4xx/5xx text or
 * `x-request-id` may quote it: the answer's errors, extensions and upstream request ids are
 * scrubbed of those values (bounded, like the inputs), its data is not (a `write` token reads env).
 * Only references are kept while the document runs; they are looked through once, at its end.
 */
export class ValuesRead {
  private readonly answers: unknown[] = [];
  private past = false;

  /** Told each JSON answer a call of the document parsed. */
  readonly observe = (value: unknown): void => {
    if (this.answers.length < MAX_ANSWERS_KEPT) this.answers.push(value);
    else this.past = true;
  };

  /** `answer` (and `ids`' upstream ids) with its upstream details scrubbed of the env values read. */
  scrub(answer: GatewayAnswer, ids: RequestIds): GatewayAnswer {
    const values: string[] = [];
    let chars = 0;
    let past = this.past;
    const file = (value: string) => {
      if (value.length < MIN_DOCUMENT_SECRET_CHARS || past) return;
      if ((chars += value.length) > MAX_VALUES_READ_CHARS) past = true;
      else values.push(value);
    };
    // `under`: inside a field named for env values or a secret. An env entry's `key` is a name, not a value.
    const walk = (value: unknown, under: boolean, depth: number): void => {
      if (past || depth > 32) return;
      if (typeof value === 'string') {
        if (!under) return;
        file(value);
        // GraphQL's `KEY=value` strings: the value alone is echoed too.
        const eq = value.indexOf('=');
        if (eq > 0) file(value.slice(eq + 1));
        return;
      }
      if (typeof value !== 'object' || value === null) return;
      if (Array.isArray(value)) {
        for (const item of value) walk(item, under, depth + 1);
        return;
      }
      for (const key in value) walk((value as Record<string, unknown>)[key], under ? key !== 'key' : READ_SECRET.test(key), depth + 1);
    };
    // In process over REST v2 the data is built from the answers; over RunPod's GraphQL it is what was read.
    if (this.answers.length) for (const read of this.answers) walk(read, false, 0);
    else walk(answer.body.data, false, 0);
    if (!values.length && !past) return answer;
    const { errors, extensions } = answer.body;
    if (!errors?.length && !past) {
      // No error: only the request ids can carry a value, and they are few and short. An id that
      // holds one (whole, or SECRET_WINDOW characters of it, in any spelling) is withheld whole,
      // found without indexing every spelling of every value (which would cost each read of a list
      // of pods more than the rest of its answer).
      const held = idsHolding(ids.toJSON().upstream, values);
      if (held.size) ids.scrubUpstream((id) => (held.has(id) ? REDACTED : id));
      return answer;
    }
    const scope = new SecretScope({ minChars: MIN_DOCUMENT_SECRET_CHARS });
    for (const value of values) scope.add(value);
    const scrub = (text: string) => scope.scrub(text);
    ids.scrubUpstream(scrub);
    const note = '$1 (RunPod\'s details are withheld: the document read more env values than its answer is scrubbed of)';
    const scrubbed = errors && (JSON.parse(scrub(JSON.stringify(errors))) as typeof errors);
    const body = {
      ...answer.body,
      ...(scrubbed && { errors: past ? scrubbed.map((e) => ({ ...e, message: e.message.replace(UPSTREAM_DETAIL, note) })) : scrubbed }),
      ...(extensions && { extensions: JSON.parse(scrub(JSON.stringify(extensions))) as typeof extensions }),
    };
    return { ...answer, body };
  }
}

/** Width of the runs the id matcher looks values up by. */
const RUN = 8;
/** Bytes a hex or base64 run of an id must share with a value's (SECRET_WINDOW hex characters: 16 bytes). */
const BYTES_WINDOW = SECRET_WINDOW / 2;

const runHash = (units: ArrayLike<number>, at: number): number => {
  let h = 0;
  for (let k = 0; k < RUN; k++) h = (Math.imul(h, 0x01000193) + units[at + k]!) | 0;
  return h;
};

/** Views of a few texts (the ids), each run of RUN at every place filed by its hash: [view, place, …]. */
class Views {
  readonly views: Array<ArrayLike<number>> = [];
  readonly owners: number[] = [];
  readonly runs = new Map<number, number[]>();

  add(owner: number, view: ArrayLike<number>): void {
    if (view.length < RUN) return;
    const v = this.views.push(view) - 1;
    this.owners.push(owner);
    for (let at = 0; at + RUN <= view.length; at++) {
      const h = runHash(view, at);
      const list = this.runs.get(h);
      if (list) list.push(v, at);
      else this.runs.set(h, [v, at]);
    }
  }

  /** Adds to `held` the owners of the views sharing `window` units of `probe` with it, or all of it. */
  find(probe: ArrayLike<number>, window: number, held: Set<number>): void {
    const n = probe.length;
    if (n < RUN) return;
    // Any run shared of 2 × RUN - 1 or more holds one that starts at a multiple of RUN (or the last).
    for (let at = 0; ; at = Math.min(at + RUN, n - RUN)) {
      const found = this.runs.get(runHash(probe, at));
      for (let k = 0; found && k < found.length; k += 2) {
        const view = this.views[found[k]!]!;
        const q = found[k + 1]!;
        let same = 0;
        while (same < RUN && view[q + same] === probe[at + same]) same++;
        if (same < RUN) continue;
        let before = 0;
        while (before < at && before < q && view[q - before - 1] === probe[at - before - 1]) before++;
        let after = RUN;
        while (at + after < n && q + after < view.length && view[q + after] === probe[at + after]) after++;
        if (before + after >= window || (before === at && at + after === n)) held.add(this.owners[found[k]!]!);
      }
      if (at === n - RUN) break;
    }
  }
}

const B64 = new Map([...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].map((c, i) => [c.charCodeAt(0), i]));
// base64url's two letters read as base64's.
B64.set(45, 62).set(95, 63);

/** The bytes each base64 run of `text` (8 characters or more) decodes to, at each of its four alignments. */
function base64Views(text: string, add: (view: Uint8Array) => void): void {
  for (let i = 0; i < text.length; ) {
    let j = i;
    while (j < text.length && B64.has(text.charCodeAt(j))) j++;
    if (j - i >= RUN) {
      for (let a = 0; a < 4; a++) {
        const out: number[] = [];
        for (let k = i + a; k + 4 <= j; k += 4) {
          const n = (B64.get(text.charCodeAt(k))! << 18) | (B64.get(text.charCodeAt(k + 1))! << 12) | (B64.get(text.charCodeAt(k + 2))! << 6) | B64.get(text.charCodeAt(k + 3))!;
          out.push(n >> 16, (n >> 8) & 255, n & 255);
        }
        // The last group, cut short by `=` or the run's end.
        const rest = (j - i - a) % 4;
        if (rest >= 2) {
          const k = j - rest;
          const n = (B64.get(text.charCodeAt(k))! << 18) | (B64.get(text.charCodeAt(k + 1))! << 12) | (rest === 3 ? B64.get(text.charCodeAt(k + 2))! << 6 : 0);
          out.push(n >> 16);
          if (rest === 3) out.push((n >> 8) & 255);
        }
        add(Uint8Array.from(out));
      }
    }
    i = Math.max(j, i + 1);
  }
}

/** The bytes each hex run of `text` (16 digits or more) spells, at both parities. */
function hexViews(text: string, add: (view: Uint8Array) => void): void {
  const hex = (c: number) => (c >= 48 && c <= 57 ? c - 48 : (c | 32) >= 97 && (c | 32) <= 102 ? (c | 32) - 87 : -1);
  for (let i = 0; i < text.length; ) {
    let j = i;
    while (j < text.length && hex(text.charCodeAt(j)) >= 0) j++;
    if (j - i >= 2 * RUN) {
      for (let p = 0; p < 2; p++) {
        const out: number[] = [];
        for (let k = i + p; k + 2 <= j; k += 2) out.push(hex(text.charCodeAt(k)) * 16 + hex(text.charCodeAt(k + 1)));
        add(Uint8Array.from(out));
      }
    }
    i = Math.max(j, i + 1);
  }
}

/**
 * The ids that hold one of `values`: its characters as the scrubber reads them (escaped or not, any
 * case), or the bytes of its hex or base64 spelling (a `user:value` base64 too), whole or a run of
 * SECRET_WINDOW characters of the spelling. Linear in the ids and the values.
 */
export function idsHolding(ids: readonly string[], values: readonly string[]): Set<string> {
  const units = new Views();
  const bytes = new Views();
  ids.forEach((id, i) => {
    units.add(i, foldedUnits(id));
    let raw = id;
    try {
      if (id.includes('%')) raw = decodeURIComponent(id);
    } catch {
      // Not an escape after all: read as written.
    }
    const addBytes = (view: Uint8Array) => bytes.add(i, view);
    for (const text of raw === id ? [id] : [id, raw]) (hexViews(text, addBytes), base64Views(text, addBytes));
  });
  const held = new Set<number>();
  const encoder = new TextEncoder();
  for (const value of values) {
    units.find(foldedUnits(value, 0), SECRET_WINDOW, held);
    // A value holding escapes is echoed as they read, too (see patternsOf in transport/redact.ts).
    if (/[%\\&]/.test(value)) for (let kinds = 1; kinds <= 7; kinds++) units.find(foldedUnits(value, kinds), SECRET_WINDOW, held);
    bytes.find(encoder.encode(value), BYTES_WINDOW, held);
  }
  return new Set([...held].map((i) => ids[i]!));
}
