// The per-request logger (`request.log`), made only when a request logs something. Fastify gives every request a
// pino child logger bound to its id; pino builds a child as a new logger object with the bindings serialized, ~0.5 µs
// of the point lookup's CPU (docs/performance.md, thirty-sixth round), though at the services' usual level (warn in
// the benchmark, info with request logging off) most requests log nothing. This stands in for the child: a call at
// a level that is off returns at once; the first call at a level that is on makes pino's child, which writes that
// line and every later one, with the same bindings and serializers as before. pino has no lazy child of its own.
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type LogArguments = Parameters<FastifyBaseLogger['info']>;

/** pino's levels by value (the services use no custom levels). */
const LEVEL_VALUES: Readonly<Record<string, number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
};

class DeferredChildLogger {
  private pinoChild: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  get level(): string {
    return this.pinoChild?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.made().level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (LEVEL_VALUES[level] ?? Infinity) >= (LEVEL_VALUES[this.level] ?? 0);
  }

  trace(...args: LogArguments): void {
    if (this.isLevelEnabled('trace')) this.made().trace(...args);
  }

  debug(...args: LogArguments): void {
    if (this.isLevelEnabled('debug')) this.made().debug(...args);
  }

  info(...args: LogArguments): void {
    if (this.isLevelEnabled('info')) this.made().info(...args);
  }

  warn(...args: LogArguments): void {
    if (this.isLevelEnabled('warn')) this.made().warn(...args);
  }

  error(...args: LogArguments): void {
    if (this.isLevelEnabled('error')) this.made().error(...args);
  }

  fatal(...args: LogArguments): void {
    if (this.isLevelEnabled('fatal')) this.made().fatal(...args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.made().child(bindings, options);
  }

  private made(): FastifyBaseLogger {
    return (this.pinoChild ??= this.parent.child(this.bindings, this.options));
  }
}

/** Fastify's `childLoggerFactory`: request loggers whose pino child is made on their first line. */
export const deferredRequestLoggers: NonNullable<FastifyServerOptions['childLoggerFactory']> = (
  logger,
  bindings,
  options,
) => new DeferredChildLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
