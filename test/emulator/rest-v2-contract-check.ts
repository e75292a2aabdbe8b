import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule, { type FormatsPlugin } from 'ajv-formats';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = (formatsModule as unknown as { default: FormatsPlugin }).default;

type Json = Record<string, unknown>;
interface Operation {
  operationId: string;
  responses: Record<string, Json>;
}

/** The project's prose-free copy of the REST v2 contract: present on every clone. */
export const contract = JSON.parse(readFileSync(new URL('../../src/contracts/rest-v2.openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, Json> };
};

// An independent validator (ajv, JSON Schema 2020-12 with unevaluatedProperties), not the emulator's own.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
for (const format of ['float', 'double', 'int32', 'int64']) ajv.addFormat(format, true);
ajv.addSchema(contract as object, 'rest-v2');

/** Every operation: `METHOD /v2/path/{id}` → operationId. */
export function contractOperations(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, ops] of Object.entries(contract.paths)) {
    for (const [method, op] of Object.entries(ops)) if (method !== 'parameters') out.set(`${method.toUpperCase()} ${path}`, op.operationId);
  }
  return out;
}

/** The contract operation a concrete request hits (literal segments win over `{id}`). */
export function operationFor(method: string, pathname: string): { key: string; op: Operation } | undefined {
  const segments = pathname.split('/').filter(Boolean);
  let best: { key: string; op: Operation; literals: number } | undefined;
  for (const [path, ops] of Object.entries(contract.paths)) {
    const op = ops[method.toLowerCase()];
    const template = path.split('/').filter(Boolean);
    if (!op || template.length !== segments.length) continue;
    let literals = 0;
    const matches = template.every((t, i) => (t.startsWith('{') ? true : t === decodeURIComponent(segments[i]!) && ++literals > 0));
    if (matches && (!best || literals > best.literals)) best = { key: `${method.toUpperCase()} ${path}`, op, literals };
  }
  return best;
}

function responseObject(op: Operation, status: number): Json | undefined {
  const response = op.responses[String(status)] ?? op.responses.default;
  if (!response) return undefined;
  const ref = response.$ref as string | undefined;
  return ref ? contract.components.responses[ref.split('/').pop()!] : response;
}

/**
 * What is wrong with an answer by the contract: its status must be declared (or `default` for
 * an error), its media type declared, and a JSON body must match the schema.
 */
export function answerProblems(method: string, pathname: string, status: number, contentType: string | null, body: string): string[] {
  const found = operationFor(method, pathname);
  if (!found) return [`no contract operation for ${method} ${pathname}`];
  const { op } = found;
  if (!op.responses[String(status)] && (status < 400 || !op.responses.default)) return [`status ${status} is not declared for ${found.key}`];
  const response = responseObject(op, status);
  const content = response?.content as Record<string, { schema: Json }> | undefined;
  if (!content) return body === '' ? [] : [`${found.key} ${status} declares no body, got ${body.slice(0, 80)}`];
  const mediaType = (contentType ?? '').split(';')[0]!.trim();
  const media = content[mediaType];
  if (!media) return [`media type ${mediaType} is not declared for ${found.key} ${status} (${Object.keys(content).join(', ')})`];
  if (mediaType === 'text/event-stream') return [];
  const ref = media.schema.$ref as string | undefined;
  const validate = ref ? ajv.getSchema(`rest-v2${ref}`) : ajv.compile(media.schema);
  if (!validate) return [`cannot compile the schema of ${found.key} ${status}`];
  return validate(JSON.parse(body)) ? [] : (validate.errors ?? []).map((e) => `${found.key} ${status}: ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}

/** The events of an SSE body: `{ id, data }` each. */
export function sseEvents(body: string): Array<{ id: string | undefined; data: { ts: string; source: string; line: string } }> {
  return body
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const lines = block.split('\n');
      const id = lines.find((l) => l.startsWith('id: '))?.slice(4);
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return { id, data: JSON.parse(data) as { ts: string; source: string; line: string } };
    });
}

/** Reads an SSE body until `count` events have arrived, then hangs up; the stream may stay open. */
export async function readSse(res: Response, count: number): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while ((text.match(/\n\n/g) ?? []).length < count) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text;
}
