// Stage "variables": the request's variables, coerced against the operation's definitions, so
// nothing invalid goes upstream (400 BAD_USER_INPUT).
import { getVariableValues } from 'graphql';
import { buildExecutableSchema } from '../../graphql/executable-schema.js';
import { coercionEntry } from '../answers.js';
import type { Stage } from '../pipeline.js';
import { documentSecrets } from '../scrub.js';
import { invalidAnswer } from './document.js';

export function variablesStage(): Stage {
  return {
    name: 'variables',
    run(context, next) {
      const coerced = getVariableValues(buildExecutableSchema(), context.operation!.variableDefinitions ?? [], context.params!.variables ?? {});
      // Named by the variable's field, never its value (which may be a password).
      if (coerced.errors) return invalidAnswer(coerced.errors.map(coercionEntry));
      // The document's secret inputs, once they passed their checks: its own scrubber's, no one else's.
      context.secrets = documentSecrets(buildExecutableSchema(), context.document!, context.operation!, coerced.coerced);
      return next();
    },
  };
}
