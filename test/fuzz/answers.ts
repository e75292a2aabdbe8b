// Malformed answers: bodies of every wrong shape, on success and error statuses, JSON or not.

/** Stands for a 50k-deep value; replaced in the JSON text, since JSON.stringify cannot build it. */
const DEEP = '__DEEP__';

/** JSON text nested `levels` deep, built without recursion. */
function deepJson(levels: number): string {
  return `${'{"e":['.repeat(levels)}1${']}'.repeat(levels)}`;
}

const WRONG_VALUES: ReadonlyArray<[string, string]> = [
  ['empty', ''],
  ['null', 'null'],
  ['string', '"hello"'],
  ['number', '42'],
  ['negative', '-1'],
  ['boolean', 'true'],
  ['empty array', '[]'],
  ['array of null', '[null]'],
  ['array of numbers', '[1,2,3]'],
  ['empty object', '{}'],
  ['proto key', '{"__proto__":{"polluted":1}}'],
  ['cut off', '{"data": {"pod": {"id": '],
  ['html', '<html><body>502 Bad Gateway</body></html>'],
  ['huge number', '1e400'],
  ['deep object', deepJson(50_000)],
];

const GRAPHQL_SHAPES: ReadonlyArray<[string, unknown]> = [
  ['data null', { data: null }],
  ['data empty', { data: {} }],
  ['errors null', { errors: null }],
  ['errors object', { errors: { message: 'x' } }],
  ['errors string', { errors: 'boom' }],
  ['errors [null]', { errors: [null] }],
  ['errors [{}]', { errors: [{}] }],
  ['errors message number', { errors: [{ message: 5 }] }],
  ['errors with data', { errors: [{ message: 'partial' }], data: { myself: { pods: 'x' } } }],
  ['deep extensions', { errors: [{ message: 'x', extensions: DEEP }] }],
  ['myself null', { data: { myself: null } }],
  ['pods string', { data: { myself: { pods: 'x' } } }],
  ['pods [null]', { data: { myself: { pods: [null] } } }],
  ['pods [number]', { data: { myself: { pods: [5] } } }],
  ['pod null', { data: { pod: null } }],
  ['pod string', { data: { pod: 'x' } }],
  ['pod no id', { data: { pod: { desiredStatus: 'RUNNING' } } }],
  ['deploy null', { data: { podFindAndDeployOnDemand: null } }],
  ['deploy string', { data: { podFindAndDeployOnDemand: 'x' } }],
  ['resume null', { data: { podResume: null } }],
  ['stop null', { data: { podStop: null } }],
  ['gpuTypes string', { data: { gpuTypes: 'x' } }],
  ['gpuTypes [null]', { data: { gpuTypes: [null] } }],
  ['gpuTypes bad price', { data: { gpuTypes: [{ id: 'g', displayName: 'G', lowestPrice: 'x', securePrice: 'cheap' }] } }],
  ['gpuTypes bad counts', { data: { gpuTypes: [{ id: 'g', displayName: 'G', lowestPrice: { availableGpuCounts: 'x', stockStatus: 5 } }] } }],
];

const REST_AND_JOB_SHAPES: ReadonlyArray<[string, unknown]> = [
  ['id null', { id: null }],
  ['id number', { id: 5 }],
  ['list of strings', ['a', 'b']],
  ['list of null', [null, null]],
  ['object for list', { items: [] }],
  ['pod numbers as text', { id: 'p', costPerHr: 'x', machine: 'y' }],
  ['pod machine null', { id: 'p', costPerHr: '0.5', machine: null }],
  ['job no id', { status: 'IN_QUEUE' }],
  ['job status number', { id: 'j', status: 5 }],
  ['job status unknown', { id: 'j', status: 'EXPLODED' }],
  ['job failed deep error', { id: 'j', status: 'FAILED', error: DEEP }],
  ['job failed no error', { id: 'j', status: 'FAILED' }],
  ['job failed object error', { id: 'j', status: 'FAILED', error: { message: 'm' } }],
  ['job timed out', { id: 'j', status: 'TIMED_OUT' }],
  ['job cancelled', { id: 'j', status: 'CANCELLED' }],
  ['job completed no output', { id: 'j', status: 'COMPLETED' }],
  ['stream not array', { status: 'IN_PROGRESS', stream: 'x' }],
  ['stream [null]', { status: 'COMPLETED', stream: [null] }],
  ['stream deep', { status: 'COMPLETED', stream: [{ output: DEEP }] }],
  ['health workers string', { jobs: 'x', workers: 'y' }],
  ['purge removed string', { removed: 'x', status: 5 }],
  ['problem details', { type: 5, title: null, status: 'x', detail: ['a'], errors: 'x' }],
  ['rest error number', { error: 5, status: 'x' }],
];

export interface MalformedAnswer {
  readonly name: string;
  /** Holds a 50k-deep value (slow to parse: CI gives each method a few of these, the soak all). */
  readonly deep?: boolean;
  readonly status: number;
  readonly contentType: string | undefined;
  readonly text: string;
}

function json(value: unknown): string {
  return JSON.stringify(value).replaceAll(`"${DEEP}"`, () => deepJson(50_000));
}

/** Every wrong value and shape × success and error statuses × JSON and not: well over 80 answers. */
export function malformedAnswers(): MalformedAnswer[] {
  const bodies: Array<[string, string]> = [
    ...WRONG_VALUES,
    ...GRAPHQL_SHAPES.map(([name, v]): [string, string] => [name, json(v)]),
    ...REST_AND_JOB_SHAPES.map(([name, v]): [string, string] => [name, json(v)]),
  ];
  const out: MalformedAnswer[] = [];
  for (const [name, text] of bodies) {
    const deep = text.length > 100_000;
    out.push({ name: `200 ${name}`, status: 200, contentType: 'application/json', text, deep });
    out.push({ name: `201 ${name} (text/plain)`, status: 201, contentType: 'text/plain', text, deep });
    out.push({ name: `400 ${name}`, status: 400, contentType: 'application/json', text, deep });
  }
  for (const status of [401, 402, 403, 404, 409, 410, 422, 429, 500, 502, 503]) {
    out.push({ name: `${status} deep`, status, contentType: 'application/json', text: deepJson(50_000), deep: true });
    out.push({ name: `${status} empty`, status, contentType: undefined, text: '' });
  }
  out.push({ name: '204 no content', status: 204, contentType: undefined, text: '' });
  return out;
}

/**
 * The answers method number `index` meets: all of them in the soak; in CI every shallow one and
 * three deep ones, rotating so that together the methods meet every deep answer.
 */
export function answersFor(all: readonly MalformedAnswer[], index: number, everything: boolean): MalformedAnswer[] {
  if (everything) return [...all];
  const deep = all.filter((a) => a.deep);
  const picked = new Set([0, 1, 2].map((k) => deep[(index * 3 + k) % deep.length]));
  return all.filter((a) => !a.deep || picked.has(a));
}

export function toResponse(answer: MalformedAnswer): Response {
  const headers: Record<string, string> = answer.contentType ? { 'content-type': answer.contentType } : {};
  const nullBody = answer.status === 204 || answer.status === 205;
  return new Response(nullBody ? null : answer.text, { status: answer.status, headers });
}
