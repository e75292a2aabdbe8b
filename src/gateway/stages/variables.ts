// Stage "variables": the request's variables, coerced against the operation's definitions, so
// nothing invalid goes upstream (400 BAD_USER_INPUT).
import { getVariableValues } from 'graphql';
import { buildExecutableSchema } from '../../graphql/executable-schema.js';
import type { Stage } from '../pipeline.js';
import { invalidAnswer } from './document.js';

export function variablesStage(): Stage {
  return {
    name: 'variables',
    run(context, next) {
      const coerced = getVariableValues(buildExecutableSchema(), context.operation!.variableDefinitions ?? [], context.params!.variables ?? {});
      if (coerced.errors) return invalidAnswer(coerced.errors.map((e) => ({ message: e.message, extensions: { code: 'BAD_USER_INPUT' } })));
      return next();
    },
  };
}
