// Stage "variables": the request's variables, coerced against the operation's definitions, so
// nothing invalid goes upstream (400 BAD_USER_INPUT).
import { getVariableValues, Kind, type OperationDefinitionNode, type TypeNode } from 'graphql';
import { buildExecutableSchema } from '../../graphql/executable-schema.js';
import { coercionEntry } from '../answers.js';
import type { Stage } from '../pipeline.js';
import { documentSecrets } from '../scrub.js';
import { invalidAnswer } from './document.js';

/** A built-in scalar a variable may be declared as, with how graphql-js takes its value as it is. */
type Scalar = 'String' | 'Boolean' | 'Int' | 'Float' | 'ID';

/** One variable of an operation whose value is checked here, without graphql-js: a built-in scalar, no default. */
interface PlainVariable {
  readonly name: string;
  readonly scalar: Scalar;
  readonly nonNull: boolean;
}

const SCALARS = new Set<string>(['String', 'Boolean', 'Int', 'Float', 'ID']);
const MAX_INT = 2 ** 31 - 1;
const MIN_INT = -(2 ** 31);

/** The operation's variables when each is a built-in scalar without a default (else undefined: graphql-js coerces them). */
export function plainVariables(operation: OperationDefinitionNode): readonly PlainVariable[] | undefined {
  const plain: PlainVariable[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    if (definition.defaultValue !== undefined) return undefined;
    let type: TypeNode = definition.type;
    const nonNull = type.kind === Kind.NON_NULL_TYPE;
    if (type.kind === Kind.NON_NULL_TYPE) type = type.type;
    if (type.kind !== Kind.NAMED_TYPE || !SCALARS.has(type.name.value)) return undefined;
    plain.push({ name: definition.variable.name.value, scalar: type.name.value as Scalar, nonNull });
  }
  return plain;
}

/** Per operation (kept with its parsed document, which the document cache bounds): its plain variables, or null. */
const plans = new WeakMap<OperationDefinitionNode, readonly PlainVariable[] | null>();

/** Whether graphql-js would take `value` for `scalar` as it is (an ID given as an integer is not: it becomes a string). */
function takesAsIs(scalar: Scalar, value: unknown): boolean {
  switch (scalar) {
    case 'String':
    case 'ID':
      return typeof value === 'string';
    case 'Boolean':
      return typeof value === 'boolean';
    case 'Int':
      return typeof value === 'number' && Number.isInteger(value) && value <= MAX_INT && value >= MIN_INT;
    case 'Float':
      return typeof value === 'number' && Number.isFinite(value);
  }
}

/**
 * The coerced variables, the same graphql-js's `getVariableValues` gives, when every variable is
 * a built-in scalar given as the type takes it (or left out, or null where it may be): the
 * repeated document's usual case, checked without a walk of the schema. Undefined otherwise.
 */
export function coercedAsIs(plain: readonly PlainVariable[], inputs: Record<string, unknown>): Record<string, unknown> | undefined {
  const coerced: Record<string, unknown> = {};
  for (const { name, scalar, nonNull } of plain) {
    if (!Object.hasOwn(inputs, name)) {
      if (nonNull) return undefined;
      continue;
    }
    const value = inputs[name];
    if (value === null) {
      if (nonNull) return undefined;
    } else if (value === undefined || !takesAsIs(scalar, value)) return undefined;
    coerced[name] = value;
  }
  return coerced;
}

export function variablesStage(): Stage {
  return {
    name: 'variables',
    run(context, next) {
      const operation = context.operation!;
      const inputs = context.params!.variables ?? {};
      let plain = plans.get(operation);
      if (plain === undefined) plans.set(operation, (plain = plainVariables(operation) ?? null));
      let values = plain ? coercedAsIs(plain, inputs) : undefined;
      if (!values) {
        const coerced = getVariableValues(buildExecutableSchema(), operation.variableDefinitions ?? [], inputs);
        // Named by the variable's field, never its value (which may be a password).
        if (coerced.errors) return invalidAnswer(coerced.errors.map(coercionEntry));
        values = coerced.coerced;
      }
      // The document's secret inputs, once they passed their checks: its own scrubber's, no one else's.
      context.secrets = documentSecrets(buildExecutableSchema(), context.document!, operation, values);
      return next();
    },
  };
}
