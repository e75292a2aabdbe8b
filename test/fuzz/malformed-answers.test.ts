import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { RunpodError } from '../../src/errors.js';
import { answersFor, malformedAnswers, toResponse, type MalformedAnswer } from './answers.js';
import { fuzzClient, METHODS, FUZZ_TIMEOUT_MS, params, reportFigures, settleWithin, SOAK, type MethodRow } from './harness.js';

interface Outcome {
  method: string;
  answer: string;
  kind: 'runpod-error' | 'type-error' | 'other-error' | 'hang' | 'resolved';
  detail?: string;
}

async function drive(method: MethodRow, respond: () => Response): Promise<Outcome> {
  const { client } = fuzzClient(() => respond());
  const settled = await settleWithin(() => method.call(client, 'p1'));
  const base = { method: method.name, answer: '' };
  if (settled.kind === 'hang') return { ...base, kind: 'hang' };
  if (settled.kind === 'resolved') return { ...base, kind: 'resolved' };
  const { error } = settled;
  if (error instanceof RunpodError) return { ...base, kind: 'runpod-error' };
  const detail = error instanceof Error ? `${error.name}: ${error.message.slice(0, 160)}` : String(error);
  return { ...base, kind: error instanceof TypeError || error instanceof RangeError ? 'type-error' : 'other-error', detail };
}

const outcomes: Outcome[] = [];

const isFailure = (o: Outcome) => o.kind !== 'runpod-error' && o.kind !== 'resolved';

afterAll(() => {
  const count = (kind: Outcome['kind']) => outcomes.filter((o) => o.kind === kind).length;
  const resolvedBy = new Map<string, number>();
  for (const o of outcomes) if (o.kind === 'resolved') resolvedBy.set(o.method, (resolvedBy.get(o.method) ?? 0) + 1);
  reportFigures('every method × malformed answer', {
    methods: METHODS.length,
    answers: malformedAnswers().length,
    cases: outcomes.length,
    RunpodError: count('runpod-error'),
    'TypeError/RangeError': count('type-error'),
    'other non-RunpodError': count('other-error'),
    hangs: count('hang'),
    'resolved (shape not checked by the surface)': count('resolved'),
    // Most are right (a 204 for a delete, any object for graphql.request): this says where to look.
    'resolved by method': [...resolvedBy].sort((a, b) => b[1] - a[1]).map(([m, n]) => `${m} ${n}`).join(', ') || 'none',
  });
});

describe('every method × malformed answer → a RunpodError, within its deadline', () => {
  const answers = malformedAnswers();

  it('has at least 80 malformed answers and a row for every surface', () => {
    expect(answers.length).toBeGreaterThanOrEqual(80);
    for (const surface of ['graphql', 'pods', 'gpuTypes', 'rest', 'endpoint', 'job', 'loadBalanced']) {
      expect(METHODS.some((m) => m.name.startsWith(surface))).toBe(true);
    }
  });

  it.each(METHODS.map((m, i) => [m.name, m, i] as const))('%s never throws a TypeError or RangeError, nor hangs', async (_name, method, index) => {
    const failures: Outcome[] = [];
    for (const answer of answersFor(answers, index, SOAK)) {
      const outcome = { ...(await drive(method, () => toResponse(answer))), answer: answer.name };
      outcomes.push(outcome);
      if (isFailure(outcome)) failures.push(outcome);
    }
    expect(failures).toEqual([]);
  });

  it('random JSON answers on random methods and statuses', async () => {
    const answer = fc.record({
      status: fc.constantFrom(200, 201, 202, 400, 404, 409, 422, 500),
      json: fc.jsonValue({ maxDepth: SOAK ? 8 : 4 }),
      contentType: fc.constantFrom('application/json', 'text/plain', undefined),
    });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...METHODS), answer, async (method, a) => {
        const malformed: MalformedAnswer = { name: 'random', status: a.status, contentType: a.contentType, text: JSON.stringify(a.json) };
        const outcome = { ...(await drive(method, () => toResponse(malformed))), answer: `random ${malformed.text.slice(0, 80)}` };
        outcomes.push(outcome);
        expect(isFailure(outcome) ? outcome : 'ok').toBe('ok');
      }),
      params(150),
    );
  }, FUZZ_TIMEOUT_MS);
});
