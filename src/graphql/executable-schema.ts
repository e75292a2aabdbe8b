// What every executor of schema.graphql in this package shares: the executable schema and the
// bounded cache of parsed, validated documents. The emulator's GraphQL handler and the in-process
// executor over REST v2 both use it, so a document one of them refuses the other refuses too.
// Loaded lazily by both (it imports graphql-js).
import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLError,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  parse,
  validate,
  type DocumentNode,
  type GraphQLNamedType,
  type GraphQLType,
} from 'graphql';
import { schemaCompact } from './__generated__/schema-compact.js';

const CPU_INSTANCE_ID = /^cpu\d[a-z]-\d+-\d+$/;

/**
 * A `deployCpuPodInput.instanceId` as the platform takes it: a CPU instance type such as
 * `cpu3c-2-4`. The input's fields are the schema's (`deployCpuPodInput`, an input type), checked by
 * validation and variable coercion; the id's form is checked here. Thrown as a GraphQLError, so the
 * executor answers it as a field error.
 */
export function checkCpuInstanceId(instanceId: unknown): string {
  if (typeof instanceId !== 'string' || !CPU_INSTANCE_ID.test(instanceId)) {
    throw new GraphQLError('Field "instanceId" of type "deployCpuPodInput" must be a CPU instance type such as "cpu3c-2-4".');
  }
  return instanceId;
}

let built: GraphQLSchema | undefined;

/**
 * schema.graphql, executable. Built once per process
 * and shared by every executor (the gateway, the in-process executor, the emulator): building the
 * platform's whole schema is the costliest step of start-up, and a built schema is never changed.
 */
export function buildExecutableSchema(): GraphQLSchema {
  return (built ??= buildOnce());
}

function buildOnce(): GraphQLSchema {
  return decodeSchema(schemaCompact);
}

/**
 * The GraphQLSchema of the compact form `encodeSchema` writes (src/codegen/graphql-schema.ts, which
 * describes it), built with graphql-js's constructors as buildSchema would build its SDL: the same
 * types, in the same order, and no SDL parser or schema extension code in a bundle.
 * test/graphql/schema-compact.test.ts holds the two equal.
 */
export function decodeSchema(text: string): GraphQLSchema {
  const types: GraphQLNamedType[] = [GraphQLString, GraphQLInt, GraphQLBoolean, GraphQLFloat, GraphQLID];
  const ref = (code: string | undefined): GraphQLType =>
    code === undefined ? GraphQLString : code.endsWith('!') ? new GraphQLNonNull(ref(code.slice(0, -1))) : code[0] === '[' ? new GraphQLList(ref(code.slice(1, -1))) : types[parseInt(code, 36)]!;
  // `name`, `name:ref`, `name(arg,arg:ref):ref`: the name, the arguments, the type.
  const member = (text: string) => /^(\w+)(?:\((.*)\))?(?::(.*))?$/.exec(text)!;
  const fields = (members: string[], withArgs: boolean) => () =>
    Object.fromEntries(
      members.map((text) => {
        const [, name, args, type] = member(text);
        const config = { type: ref(type) } as { type: GraphQLType; args?: Record<string, { type: GraphQLType }> };
        if (withArgs && args) config.args = Object.fromEntries(args.split(',').map((arg) => [member(arg)[1], { type: ref(member(arg)[3]) }]));
        return [name, config];
      }),
    );
  for (const line of text.split('\n')) {
    const [head, ...members] = line.split(' ');
    const name = head!.slice(1);
    const kind = head![0];
    types.push(
      kind === 'o'
        ? new GraphQLObjectType({ name, fields: fields(members, true) as never })
        : kind === 'i'
          ? new GraphQLInputObjectType({ name, fields: fields(members, false) as never })
          : kind === 'e'
            ? new GraphQLEnumType({ name, values: Object.fromEntries(members.map((value) => [value, {}])) })
            : new GraphQLScalarType({ name }),
    );
  }
  const root = (name: string) => types.find((t) => t.name === name) as GraphQLObjectType | undefined;
  return new GraphQLSchema({ query: root('Query'), mutation: root('Mutation'), types: types.slice(5) });
}

/** Longest query text kept parsed; a longer one is parsed for each request (about 36 bytes of memory per character). */
export const MAX_CACHED_QUERY_CHARS = 16 * 1024;
/** All the query text kept parsed, together, and how many documents. */
export const MAX_CACHED_QUERIES_CHARS = 256 * 1024;
export const MAX_CACHED_QUERIES = 500;

/** A document parsed and validated against the schema, or the errors that refused it. */
export type PreparedDocument = DocumentNode | readonly GraphQLError[];

/**
 * A refusal as the cache keeps it: each error's message, locations and extensions only. A
 * graphql-js error holds its stack, and the AST nodes it names hold the whole parsed document: 500
 * invalid documents kept that way held 215 MB.
 */
type KeptRefusal = ReadonlyArray<Pick<GraphQLError, 'message' | 'locations' | 'extensions'>>;

/**
 * Parsed documents by query text, least recently used first out, bounded by entry size, total size
 * and count. A refusal is kept as its messages (see {@link KeptRefusal}), charged with them (and
 * 64 characters an error) in the size bound, and handed out as fresh GraphQLErrors.
 */
export class DocumentCache {
  /** Each entry, and the characters it is charged. */
  private readonly entries = new Map<string, [DocumentNode | KeptRefusal, number]>();
  private chars = 0;

  get(query: string): PreparedDocument | undefined {
    const hit = this.entries.get(query);
    if (!hit) return undefined;
    this.entries.delete(query);
    this.entries.set(query, hit);
    const kept = hit[0];
    // `locations` set after construction: the constructor derives them from nodes or a source, neither kept.
    return 'kind' in kept ? kept : kept.map((e) => Object.assign(new GraphQLError(e.message, { extensions: e.extensions }), { locations: e.locations }));
  }

  set(query: string, prepared: PreparedDocument): void {
    let chars = query.length;
    const kept = isDocument(prepared) ? prepared : prepared.map(({ message, locations, extensions }) => ((chars += message.length + 64), { message, locations, extensions }));
    if (chars > MAX_CACHED_QUERY_CHARS || this.entries.has(query)) return;
    this.entries.set(query, [kept, chars]);
    this.chars += chars;
    for (const [oldest, [, size]] of this.entries) {
      if (this.chars <= MAX_CACHED_QUERIES_CHARS && this.entries.size <= MAX_CACHED_QUERIES) break;
      this.entries.delete(oldest);
      this.chars -= size;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** The characters held: every query text, and every kept refusal's messages. */
  get totalChars(): number {
    return this.chars;
  }
}

/** True when `prepared` is a usable document rather than the errors that refused it. */
export const isDocument = (prepared: PreparedDocument): prepared is DocumentNode => 'kind' in prepared;

/** A `prepare(query)` over `schema` with its own cache: parsed once, validated once, per distinct text. */
export function createDocumentPreparer(schema: GraphQLSchema): (query: string) => PreparedDocument {
  const documents = new DocumentCache();
  return (query) => {
    const cached = documents.get(query);
    if (cached) return cached;
    let prepared: PreparedDocument;
    try {
      // Without locations: a third of the memory, and no answer shows them.
      const document = parse(query, { noLocation: true });
      const errors = validate(schema, document);
      prepared = errors.length > 0 ? errors : document;
    } catch (err) {
      prepared = [err instanceof GraphQLError ? err : new GraphQLError(String(err))];
    }
    documents.set(query, prepared);
    return prepared;
  };
}
