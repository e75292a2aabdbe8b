// The REST GET's ablation rows of the per-call section: a module of its own, so the bench can read
// the list without running the worker (which starts measuring when imported).

/**
 * The REST GET's ablation (issue 38): the reference client with one thing the client does that the
 * reference does not, each alone, then all of them, so a machine where the client costs more over
 * loopback than on a fetch double names which of them costs it there.
 */
export const ABLATIONS = {
  'ref + User-Agent': "the client's User-Agent header",
  "ref + redirect: 'manual'": "fetch's redirect: 'manual'",
  'ref + frozen headers': 'one frozen header record shared by every call, as the client builds it',
  'ref + body reader': 'the answer read as the client reads it (status, headers and text kept in a result object)',
  'ref + rate-limit headers': 'RateLimit and RateLimit-Policy looked up on every answer',
  "ref + client's signal": "the client's per-attempt time limit (linkAbort) in place of a controller and setTimeout",
  'ref + all six': 'all of the above together',
} as const;
export type AblationName = keyof typeof ABLATIONS;
