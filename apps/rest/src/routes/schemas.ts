// Response schemas for the OpenAPI guide. Success bodies are described but left open
// (`additionalProperties: true`) so Fastify's serializer passes the GraphQL data through untouched.
export const errorResponse = {
  type: 'object',
  description: 'A JSON error; `parameter` names the offending path or query parameter when one is to blame.',
  properties: {
    statusCode: { type: 'integer' },
    error: { type: 'string' },
    message: { type: 'string' },
    parameter: { type: 'string' },
    errors: { type: 'array', items: { type: 'object', properties: { message: { type: 'string' } } } },
    requestId: { type: 'string' },
  },
  required: ['statusCode', 'error', 'message', 'requestId'],
} as const;

export function dataResponse(description: string) {
  return {
    description,
    type: 'object',
    additionalProperties: true,
    properties: { data: { description: 'The GraphQL data (or REST records with populate=1).' } },
  } as const;
}

export function responses(description: string) {
  return {
    200: dataResponse(description),
    400: {
      ...errorResponse,
      description:
        "Malformed path or query parameter, or the client's error as the GraphQL service reports it.",
    },
    502: { ...errorResponse, description: 'The GraphQL service is unreachable, or failed to answer.' },
    503: { ...errorResponse, description: 'This service is overloaded; retry after the Retry-After header.' },
    504: { ...errorResponse, description: 'The GraphQL service did not answer in time.' },
  } as const;
}
