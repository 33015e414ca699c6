/**
 * An invalid argument supplied by a client. The API layers turn it into a user-facing error (GraphQL error,
 * HTTP 400), so the message must name the argument and say what is allowed, and must never leak internals.
 */
export class ArgumentError extends Error {
  /** The name of the offending argument as the client spelled it (`dateStart`, `sort`, `pageCursor`, ...). */
  readonly argument: string;

  constructor(argument: string, message: string) {
    // Without the call stack: the message says all a client or the log needs of an argument refused, and a page of
    // 1,000 organizations whose nested `sort` is invalid throws one from each organization's resolver, where capturing
    // and then formatting each one's stack cost about half of the refusal's 60-80 ms (docs/performance.md).
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ArgumentError';
    this.argument = argument;
  }
}

/** Quotes a client-supplied value for an error message, cutting it short so a huge input cannot bloat the reply. */
export function quoteValue(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  const shown = text.length > 64 ? `${text.slice(0, 61)}...` : text;
  return JSON.stringify(shown);
}
