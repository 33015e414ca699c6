// Every failure leaves this service as JSON with a status that says whose fault it is: 400 for a bad
// path or parameter (naming it) and for the client's errors the GraphQL service reports, 404 for unknown routes,
// 405 for a method the route does not answer, 502/504 when the GraphQL service is down, failing or slow. Stack
// traces, the GraphQL service's address and its internal messages stay in the log.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import fp from 'fastify-plugin';
import { ArgumentError } from '@asrank/domain';
import { generatedRequestId, REQUEST_ID_HEADER } from '@asrank/service-kit';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GraphqlResponseError, UpstreamTimeoutError, UpstreamUnavailableError } from './graphql-client';
import { invalidParameterMessage } from '../routes/parameters';

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  /** The offending path or query parameter, when one is to blame. */
  parameter?: string;
  /** The GraphQL service's error messages, one per error. */
  errors?: { message: string }[];
  requestId: string;
}

interface ValidationEntry {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

const LOCATION_NAMES: Record<string, string> = { querystring: 'query parameter', params: 'path parameter' };

/** Turns the first schema-validation failure into (parameter, message) naming what is allowed. */
export function describeValidationFailure(
  entries: readonly ValidationEntry[],
  context: string | undefined,
): { parameter: string | undefined; message: string } {
  const where = LOCATION_NAMES[context ?? ''] ?? 'parameter';
  const first = entries[0];
  if (first === undefined) return { parameter: undefined, message: `invalid ${where}` };
  const fromPath = first.instancePath?.replace(/^\//, '').split('/')[0];
  const parameter =
    fromPath !== undefined && fromPath !== ''
      ? fromPath
      : typeof first.params?.missingProperty === 'string'
        ? first.params.missingProperty
        : typeof first.params?.additionalProperty === 'string'
          ? first.params.additionalProperty
          : undefined;
  if (parameter === undefined)
    return { parameter, message: `invalid ${where}: ${first.message ?? 'malformed'}` };
  return { parameter, message: invalidParameterMessage(where, parameter, first.message ?? 'malformed') };
}

function send(reply: FastifyReply, body: Omit<ErrorBody, 'requestId'>): FastifyReply {
  return reply
    .code(body.statusCode)
    .type('application/json; charset=utf-8')
    .send({ ...body, requestId: reply.request.id });
}

/** The path of `url` as an error message repeats it: at most a screenful, whatever the client sent. */
export function echoedPath(url: string): string {
  return (url.split('?')[0] ?? '').slice(0, 200);
}

/**
 * Fastify's `frameworkErrors`: a path that is not valid percent-encoding, or whose parameter is longer than the
 * router takes, is refused before any route, hook or error handler runs, and Fastify's default answer has neither
 * this service's error shape nor a request id (and says "Bad Request" in a 414). Set when the app is made.
 */
export function frameworkErrorReply(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const path = echoedPath(request.raw.url ?? '');
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const statusCode = tooLong ? 414 : 400;
  // The request-id plugin's hooks do not run for such a request either.
  reply.header(REQUEST_ID_HEADER, request.id);
  send(reply, {
    statusCode,
    error: STATUS_CODES[statusCode]!,
    message: tooLong
      ? `a path segment of ${path} is longer than this service reads; no AS number or organization id is that long`
      : `the path ${path} is not valid percent-encoding (e.g. %20 for a space)`,
  });
}

/** The HTTP status of a request Node's parser refused, and what to tell its client. */
function clientErrorAnswer(code: string | undefined): { statusCode: number; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW')
    return { statusCode: 431, message: 'the request line and headers are over 16 KB; send a shorter URL' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { statusCode: 408, message: 'the request did not arrive in time' };
  return { statusCode: 400, message: 'the request is not valid HTTP' };
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses (a URL over its 16 KB header limit) never
 * reaches Fastify, and its default answer has neither this service's error shape nor a request id.
 */
export function clientErrorReply(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { statusCode, message } = clientErrorAnswer(error.code);
  const requestId = generatedRequestId();
  const body = JSON.stringify({ statusCode, error: STATUS_CODES[statusCode], message, requestId });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADER}: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

export interface ErrorsOptions {
  basePath: string;
}

async function errorsPlugin(app: FastifyInstance, options: ErrorsOptions): Promise<void> {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.validation) {
      const { parameter, message } = describeValidationFailure(error.validation, error.validationContext);
      return send(reply, {
        statusCode: 400,
        error: 'Bad Request',
        message,
        ...(parameter ? { parameter } : {}),
      });
    }
    if (error instanceof ArgumentError) {
      return send(reply, {
        statusCode: 400,
        error: 'Bad Request',
        message: error.message,
        parameter: error.argument,
      });
    }
    if (error instanceof GraphqlResponseError) {
      return send(reply, {
        statusCode: 400,
        error: 'Bad Request',
        message: error.message,
        ...(error.argument !== undefined ? { parameter: error.argument } : {}),
        errors: error.messages.map((message) => ({ message })),
      });
    }
    if (error instanceof UpstreamTimeoutError) {
      request.log.warn({ err: error, detail: error.detail }, 'GraphQL service timed out');
      return send(reply, { statusCode: 504, error: 'Gateway Timeout', message: error.message });
    }
    if (error instanceof UpstreamUnavailableError) {
      request.log.warn({ err: error, detail: error.detail }, 'GraphQL service unavailable');
      return send(reply, { statusCode: 502, error: 'Bad Gateway', message: error.message });
    }
    const statusCode =
      typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500
        ? error.statusCode
        : 500;
    if (statusCode === 500) {
      request.log.error({ err: error }, 'unexpected error');
      return send(reply, {
        statusCode,
        error: 'Internal Server Error',
        message: 'internal error; see the service log',
      });
    }
    // Fastify's own client errors (an unsupported media type, a body too large, ...) keep their message.
    return send(reply, {
      statusCode,
      error: STATUS_CODES[statusCode] ?? 'Bad Request',
      message: error.message,
    });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = echoedPath(request.url);
    return send(reply, {
      statusCode: 404,
      error: 'Not Found',
      message: `no route ${request.method} ${path}; see the REST guide at ${options.basePath}/restful/doc`,
    });
  });
}

export default fp(errorsPlugin, { name: 'errors', fastify: '5.x' });
