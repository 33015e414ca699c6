// Query parameters are refused unless written as the guide says, before Fastify's schema validation reads them.
// That validation coerces types the way JavaScript's Number() does: "Infinity", " ", "0x10" and "1e3" all pass as
// integers, and "Infinity" then travels to GraphQL as null, so `first=Infinity` answered the default page of 40.
// A parameter given twice arrives as a list and was refused as "must be integer", which hid the real mistake, and
// one that only another route takes was ignored.
import fp from 'fastify-plugin';
import { ArgumentError, quoteValue } from '@asrank/domain';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidParameterMessage, PARAMETER_RULES } from '../routes/parameters';

// A sign or a fraction is left to the schema, whose ">= 0" and "must be integer" say more than this would.
const DECIMAL_NUMBER = /^-?[0-9]+(?:\.[0-9]+)?$/;

interface QuerystringSchema {
  properties?: Readonly<Record<string, { type?: string }>>;
}

/** `problem` of parameter `name`, with its rule when `withRule`. */
function refusal(name: string, problem: string, withRule = true): ArgumentError {
  return new ArgumentError(
    name,
    invalidParameterMessage('query parameter', name, problem, withRule ? undefined : null),
  );
}

/** Why the request's query string is refused, or undefined when every parameter the route takes is well written. */
export function queryStringRefusal(request: FastifyRequest): ArgumentError | undefined {
  const query = request.query as Record<string, unknown>;
  let properties: QuerystringSchema['properties'];
  for (const name in query) {
    // Routes without a query string schema (probes, metrics, the guide, other methods' 405s) read none.
    properties ??= (request.routeOptions.schema?.querystring as QuerystringSchema | undefined)?.properties;
    if (properties === undefined) return undefined;
    const type = Object.hasOwn(properties, name) ? properties[name]?.type : undefined;
    if (type === undefined) {
      // A parameter another route takes (`date` on a list, `dateStart` on one record, `name` as a query) would be
      // ignored here and answer another month or list than asked; one this service never takes (a cache buster) is.
      if (Object.hasOwn(PARAMETER_RULES, name)) {
        // Its rule is another route's, so it is not quoted.
        return refusal(
          name,
          `this route does not take it; it takes ${Object.keys(properties).join(', ')}`,
          false,
        );
      }
      continue;
    }
    const value = query[name];
    if (Array.isArray(value)) return refusal(name, `given ${value.length} times; give it once`);
    if (type === 'integer' && typeof value === 'string' && !DECIMAL_NUMBER.test(value)) {
      return refusal(name, `must be written in decimal digits only (got ${quoteValue(value)})`);
    }
  }
  return undefined;
}

async function strictQueryStringPlugin(app: FastifyInstance): Promise<void> {
  // Callback style: the hook never waits, and most requests (one record, no query string) loop over nothing.
  app.addHook('preValidation', (request, _reply, done) => done(queryStringRefusal(request)));
}

export default fp(strictQueryStringPlugin, { name: 'strict-query-string', fastify: '5.x' });
