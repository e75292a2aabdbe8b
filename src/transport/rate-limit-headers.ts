// The IETF draft rate-limit headers REST v2 sends on every authenticated answer:
//   RateLimit: "minute";r=176;t=30, "hour";r=4000;t=1800
//   RateLimit-Policy: "minute";q=200;w=60, "hour";q=5000;w=3600

/** One window of the caller's quota. */
export interface RateLimitWindow {
  /** The policy's name, e.g. `minute`. */
  readonly name: string;
  /** Requests left in the window. */
  readonly remaining: number | undefined;
  /** Seconds until the window resets. */
  readonly resetSeconds: number | undefined;
  /** Requests allowed per window, from `RateLimit-Policy`. */
  readonly quota: number | undefined;
  /** Window length in seconds, from `RateLimit-Policy`. */
  readonly windowSeconds: number | undefined;
}

/** What the server said about the caller's quota on one answer. */
export interface RateLimitInfo {
  /** The call it came with, e.g. `GET /pods/{id}`. */
  readonly operation: string;
  readonly windows: readonly RateLimitWindow[];
}

type Params = Map<string, string>;

/** `"minute";r=176;t=30, "hour";r=1` → name → params. Unreadable members are skipped. */
function parseList(header: string | null): Map<string, Params> {
  const out = new Map<string, Params>();
  if (!header) return out;
  for (const member of header.split(',')) {
    const [rawName, ...rawParams] = member.split(';').map((part) => part.trim());
    if (!rawName) continue;
    const name = rawName.replace(/^"(.*)"$/, '$1');
    const params: Params = new Map();
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq > 0) params.set(p.slice(0, eq).trim(), p.slice(eq + 1).trim());
    }
    out.set(name, params);
  }
  return out;
}

function num(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** The windows announced by `RateLimit` and `RateLimit-Policy`; empty when neither is present. */
export function parseRateLimitHeaders(headers: Headers): RateLimitWindow[] {
  const state = parseList(headers.get('ratelimit'));
  const policy = parseList(headers.get('ratelimit-policy'));
  const names = new Set([...state.keys(), ...policy.keys()]);
  return [...names].map((name) => ({
    name,
    remaining: num(state.get(name)?.get('r')),
    resetSeconds: num(state.get(name)?.get('t')),
    quota: num(policy.get(name)?.get('q')),
    windowSeconds: num(policy.get(name)?.get('w')),
  }));
}
