// Stage "scope": what the caller's scope may run. A mutation needs POST and a `write` token; each
// field the operation selects needs the scope the field map gives it (a page's read token never
// reads Pod.env). The fields beyond a scope are computed once per document, operation and scope (document-plans.ts).
import { buildExecutableSchema } from '../../graphql/executable-schema.js';
import { beyondScope } from '../document-plans.js';
import { readsOnlyCatalog } from '../field-scopes.js';
import type { Stage } from '../pipeline.js';
import { Refusal } from '../protocol.js';

export function scopeStage(): Stage {
  return {
    name: 'scope',
    run(context, next) {
      const { request, caller, document, operation } = context;
      const scope = caller!.scope;
      // Without a credential, the catalog only (what RunPod answers without a key); anything else is 401, as it always was.
      if (caller!.kind === 'public' && !readsOnlyCatalog(buildExecutableSchema(), document!, operation!)) throw caller!.unauthenticated!;
      if (operation!.operation === 'mutation') {
        if (request.method === 'GET') throw new Refusal(405, 'mutations need POST', 'METHOD_NOT_ALLOWED', { allow: 'POST' });
        if (scope !== 'write') throw new Refusal(403, `this token may run queries only (scope ${scope})`, 'FORBIDDEN');
      }
      const beyond = beyondScope(buildExecutableSchema(), document!, operation!, scope);
      if (beyond.length > 0) {
        throw new Refusal(403, `this token (scope ${scope}) may not read ${beyond.join(', ')}: leave ${beyond.length > 1 ? 'them' : 'it'} out, or use a token of a wider scope`, 'FORBIDDEN');
      }
      return next();
    },
  };
}
