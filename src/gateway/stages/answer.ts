// Stages "scrub" and "answer": the one way an answer leaves the gateway. Its text is scrubbed (in
// every spelling the redactor knows) of the gateway's key and tokens, of the caller's own key in
// pass-through mode, and of this document's secret inputs, whatever produced it: never with
// secrets other callers brought. Then it is written with its request ids (`extensions.requestIds`,
// and the gateway's own as `x-request-id`).
import type { GatewayAnswer, GatewayBody } from '../answers.js';
import type { GatewayContext } from '../context.js';
import { withDocument, type Scrub } from '../scrub.js';

/** The scrubber of this request's answer: its caller's (or the gateway's own) and its document's secret inputs, in one pass. */
export function scrubberFor(context: GatewayContext, own: Scrub): Scrub {
  const base = context.caller?.scrub ?? own;
  return context.secrets ? withDocument(base, context.secrets) : base;
}

/** Writes `answer` for `context`, scrubbed with `scrub`. */
export function writeAnswer(context: GatewayContext, { status, body, headers: extra }: GatewayAnswer, scrub: Scrub): Response {
  const headers: Record<string, string> = { 'content-type': `${context.media}; charset=utf-8`, 'cache-control': 'no-store', vary: 'Origin', 'x-request-id': context.ids.gateway, ...extra };
  if (context.origin !== undefined) {
    headers['access-control-allow-origin'] = context.origin;
    headers['access-control-expose-headers'] = 'retry-after, www-authenticate, x-request-id';
  }
  const written: GatewayBody = { ...body, extensions: { ...body.extensions, requestIds: context.ids } };
  return new Response(scrub(JSON.stringify(written)), { status, headers });
}
