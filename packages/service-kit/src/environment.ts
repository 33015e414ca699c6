// A service's configuration from its environment, validated once at start-up against a JSON schema by Ajv: defaults
// filled in, strings coerced to the schema's types, variables the schema does not name left out, and a bad value
// refused with one line naming the variable: what env-schema did for both services (its `env: false` form). Written
// here on Ajv itself because env-schema creates a shared Ajv instance as soon as it is loaded and registers a keyword
// with a meta-schema there, which makes Ajv compile the JSON Schema meta-schema first, then checks every schema
// against it: ~50-60 ms of the GraphQL service's start (docs/performance.md, twenty-eighth round). The services'
// schemas are fixed and tested, so they are not checked against the meta-schema on every start; Ajv's strict mode
// still refuses an unknown keyword.
import Ajv, { type ValidateFunction } from 'ajv';

/** The longest delay Node's timers take (a 32-bit signed count of ms; a longer one fires at once). */
export const MAX_TIMER_MS = 2147483647;

/** A value the schema refuses; the message is one line naming the variable ("PORT must be <= 65535"). */
export class EnvironmentError extends Error {
  override readonly name = 'EnvironmentError';
}

let ajv: Ajv | undefined;
const validators = new WeakMap<object, ValidateFunction>();

function validatorOf(schema: object): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    ajv ??= new Ajv({
      allErrors: true,
      removeAdditional: true,
      useDefaults: true,
      coerceTypes: true,
      allowUnionTypes: true,
      addUsedSchema: false,
      validateSchema: false,
    });
    validate = ajv.compile({ ...schema, additionalProperties: false });
    validators.set(schema, validate);
  }
  return validate;
}

/**
 * The variables of `env` that `schema` (a JSON schema of an object) names, coerced and with its defaults; throws
 * EnvironmentError for a value it refuses. `env` itself is left as it is.
 */
export function readEnvironment<T>(schema: object, env: Readonly<Record<string, unknown>>): T {
  const validate = validatorOf(schema);
  const values: Record<string, unknown> = { ...env };
  refuseNumbersNotInDecimal(schema, values);
  if (!validate(values)) {
    throw new EnvironmentError(
      ajv!.errorsText(validate.errors, { dataVar: 'env', separator: ', ' }).replace(/\benv\//g, ''),
    );
  }
  return values as T;
}

/**
 * Ajv coerces a string to a number as JavaScript's Number() does, so `PORT=0x10` served on port 16, `PORT=1e3` on
 * port 1000 and `PORT=" 4510"` on 4510: a typo became a working value. An integer variable must be decimal digits.
 */
function refuseNumbersNotInDecimal(schema: object, values: Readonly<Record<string, unknown>>): void {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  for (const [name, property] of Object.entries(properties)) {
    const value = values[name];
    if (property.type === 'integer' && typeof value === 'string' && !/^-?[0-9]+$/.test(value))
      throw new EnvironmentError(
        `${name} must be a whole number written in decimal digits, got ${JSON.stringify(value)}`,
      );
  }
}
