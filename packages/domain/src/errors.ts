/**
 * An invalid argument supplied by a client. The API layers turn it into a user-facing error (GraphQL error,
 * HTTP 400), so the message must name the argument and say what is allowed, and must never leak internals.
 */
export class ArgumentError extends Error {
  /** The name of the offending argument as the client spelled it (`dateStart`, `sort`, `pageCursor`, ...). */
  readonly argument: string;

  constructor(argument: string, message: string) {
    super(message);
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
