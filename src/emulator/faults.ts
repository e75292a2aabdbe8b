import { problemBody } from './rest-v2/problem.js';
/** Faults the emulator can inject, route by route, to show how a client copes. */
export type Fault =
  /** Wait this long (real time: it is network latency) before handling the request. */
  | { type: 'latency'; ms: number }
  /** Answer with this status, e.g. 429 with a Retry-After or a 503, without handling the request. */
  | { type: 'status'; status: number; retryAfterSeconds?: number; body?: unknown }
  /**
   * Handle the request (so a pod or job is created), then answer with an error, as the platform
   * sometimes does: on GraphQL its generic "Something went wrong…" on HTTP 200 (or `status`, e.g.
   * 500), on REST an HTTP 500.
   */
  | { type: 'error-after-create'; status?: number }
  /** Handle the request, then close the connection without an answer. */
  | { type: 'drop-after-create' }
  /** Handle the request, then hold the answer this long (real time), so the client times out. */
  | { type: 'hang-after-create'; ms: number }
  /** Close the connection without an answer. */
  | { type: 'drop' }
  /** Answer 200 with a truncated JSON body. */
  | { type: 'malformed-json' }
  /** Answer with a proxy's HTML error page. */
  | { type: 'html'; status?: number };

export interface FaultRule {
  /**
   * Which requests: `'graphql:DeployPod'` (or `'graphql:*'`) by operation name, or
   * `'POST /v1/pods'` or `'GET /v2/**'` by method and path, where `*` is one path segment and `**`
   * any number of them; the method may be `*`.
   */
  match: string;
  fault: Fault;
  /** How many matching requests it applies to. @default 1 */
  times?: number;
}

interface ActiveRule extends FaultRule {
  remaining: number;
  hits: number;
}

function pathPattern(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*\*/g, '\u0000').replace(/\*/g, '[^/]+').replace(/\u0000/g, '.*');
  return new RegExp(`^${escaped}$`);
}

export class FaultInjector {
  private rules: ActiveRule[] = [];

  /** Adds a rule; returns a function telling how many requests it has hit. */
  inject(rule: FaultRule): { hits: () => number } {
    const active: ActiveRule = { ...rule, remaining: rule.times ?? 1, hits: 0 };
    // `times: 0` (or less) never applies: nothing to keep.
    if (active.remaining > 0) this.rules.push(active);
    return { hits: () => active.hits };
  }

  clear(): void {
    this.rules = [];
  }

  /** Rules that have not been used up. */
  pending(): FaultRule[] {
    return this.rules.filter((r) => r.remaining > 0).map(({ match, fault, remaining }) => ({ match, fault, times: remaining }));
  }

  /** The fault for this request, if any, counting it as used. */
  take(method: string, path: string, operationName: string | undefined): Fault | undefined {
    for (const rule of this.rules) {
      if (rule.remaining <= 0) continue;
      let hit: boolean;
      if (rule.match.startsWith('graphql:')) {
        const name = rule.match.slice('graphql:'.length);
        hit = path.endsWith('/graphql') && (name === '*' || name === operationName);
      } else {
        const [ruleMethod = '*', rulePath = '**'] = rule.match.split(' ');
        hit = (ruleMethod === '*' || ruleMethod.toUpperCase() === method) && pathPattern(rulePath).test(path);
      }
      if (!hit) continue;
      rule.remaining -= 1;
      rule.hits += 1;
      // A used-up rule leaves the list (its `hits()` still reads it): a test that injects a fault
      // per call, for days, neither keeps every rule nor scans them all on each request.
      if (rule.remaining <= 0) this.rules = this.rules.filter((r) => r !== rule);
      return rule.fault;
    }
    return undefined;
  }

  get active(): boolean {
    return this.rules.length > 0;
  }

  /** Rules not yet used up (for `emulator.inspect.retained()`). */
  get size(): number {
    return this.rules.length;
  }
}

export const GRAPHQL_GENERIC_FAILURE = 'Something went wrong. Please try again later or contact support.';

export type AfterCreateFault = Extract<Fault, { type: 'error-after-create' | 'drop-after-create' | 'hang-after-create' }>;

export function isAfterCreate(fault: Fault): fault is AfterCreateFault {
  return fault.type === 'error-after-create' || fault.type === 'drop-after-create' || fault.type === 'hang-after-create';
}

/**
 * What the client gets instead of `handled`, the answer of a request that took effect. `drop` is the
 * emulator's answer that closes the connection; `hang` holds the answer (dispose() ends it).
 */
export async function answerAfterCreate(
  fault: AfterCreateFault,
  surface: 'graphql' | 'rest-v1' | 'rest-v2',
  handled: Response,
  drop: () => Response,
  /** Waits `ms` of real time, or less once the emulator is disposed. */
  hang: (ms: number) => Promise<void>,
): Promise<Response> {
  if (fault.type === 'drop-after-create') return drop();
  if (fault.type === 'hang-after-create') {
    await hang(fault.ms);
    return handled;
  }
  if (surface === 'rest-v2') {
    const status = fault.status ?? 500;
    return new Response(JSON.stringify(problemBody(status, 'Internal error while creating the resource.')), {
      status,
      headers: { 'content-type': 'application/problem+json' },
    });
  }
  if (surface === 'rest-v1') {
    const status = fault.status ?? 500;
    return Response.json({ error: 'create pod: internal error while deploying', status }, { status });
  }
  const fields = Object.keys(((await handled.json().catch(() => ({}))) as { data?: Record<string, unknown> | null }).data ?? {});
  const body = {
    errors: [{ message: GRAPHQL_GENERIC_FAILURE, path: fields.slice(0, 1), extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
    data: Object.fromEntries(fields.map((f) => [f, null])),
  };
  return Response.json(body, { status: fault.status ?? 200 });
}
