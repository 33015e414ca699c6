// A prom-client histogram whose observations on the request path cost a bucket search and three additions.
//
// prom-client's own `observe` checks every label name, builds a string key from the labels and looks that string up
// on every call, and its `labels()` children do the same per call: with four observations an answer (the request,
// the GraphQL operation, two statements) that was 1.3 µs of the point lookup's ~45 µs of service CPU, more than any
// other single feature (Linux perf; docs/performance.md, thirty-seventh round). No maintained Prometheus client for
// Node keeps a bound series that skips that work (prom-client's issue #514 and its newer forks only trim the key
// building). So a series here is found once per label set, kept by its caller (see `seriesLookup`), and holds its
// counts in a typed array; prom-client still names, registers, formats (/metrics) and sums (across workers) the
// histogram, which reads the series only when it is scraped.
import { Histogram, type HistogramConfiguration, type LabelValues } from 'prom-client';

/** One label set of a histogram: observing costs a bucket search and three additions. */
export interface HistogramSeries {
  observe(value: number): void;
}

class Series implements HistogramSeries {
  /** Observations per bucket, not cumulative; the last slot counts those above the largest bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Record<string, string | number>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${String(value)}`);
    const { bounds } = this;
    let bucket = 0;
    while (bucket < bounds.length && value > bounds[bucket]!) bucket++;
    this.counts[bucket]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

/** One value of the histogram as prom-client exports it (`sharedLabels` are the series' own labels). */
interface ExportedValue {
  labels: Record<string, string | number>;
  sharedLabels: Record<string, string | number>;
  value: number;
  metricName: string;
}

/**
 * A prom-client Histogram (same name, help, labels, buckets, registry and /metrics text) whose series can be held
 * by callers. `observe`, `labels`, `startTimer`, `zero` and `remove` keep prom-client's meaning.
 */
export class SeriesHistogram<T extends string = string> extends Histogram<T> {
  private readonly seriesByKey = new Map<string, Series>();
  private readonly bounds: readonly number[];
  private readonly names: readonly string[];

  constructor(configuration: HistogramConfiguration<T>) {
    if (configuration.enableExemplars) throw new Error('SeriesHistogram keeps no exemplars');
    super(configuration);
    const own = this as unknown as { upperBounds: readonly number[]; labelNames: readonly string[] };
    this.bounds = own.upperBounds;
    this.names = own.labelNames;
    // prom-client's constructor sets `observe` on the instance, which would hide this class's own.
    const observe = (labels: LabelValues<T> | number, value?: number) => {
      if (typeof labels === 'number') this.series({} as LabelValues<T>).observe(labels);
      else this.series(labels).observe(value as number);
    };
    this.observe = observe as Histogram<T>['observe'];
    // As prom-client does, a histogram without labels is exported (with zeros) before its first observation.
    if (this.names.length === 0) this.series({} as LabelValues<T>);
  }

  /** The series of one label set (every label name the histogram has, or fewer, as prom-client allows). */
  series(labels: LabelValues<T>): HistogramSeries {
    const values = labels as Record<string, string | number | undefined>;
    for (const name of Object.keys(values))
      if (!this.names.includes(name))
        throw new Error(
          `Added label "${name}" is not included in initial labelset: ${this.names.join(', ')}`,
        );
    const key = this.keyOf(values);
    let series = this.seriesByKey.get(key);
    if (!series) {
      const own: Record<string, string | number> = {};
      for (const name of this.names) if (values[name] !== undefined) own[name] = values[name];
      series = new Series(own, this.bounds);
      this.seriesByKey.set(key, series);
    }
    return series;
  }

  /** One key per label set: the names in declared order, an undefined value left out (as prom-client does). */
  private keyOf(labels: Record<string, unknown>): string {
    let key = '';
    for (const name of this.names) if (labels[name] !== undefined) key += `${name}:${String(labels[name])},`;
    return key;
  }

  /** The labels of `labels()` and `remove()`: one object, or the values in the order of the label names. */
  private labelsOf(values: unknown[]): LabelValues<T> {
    if (values.length === 1 && typeof values[0] === 'object' && values[0] !== null)
      return values[0] as LabelValues<T>;
    return Object.fromEntries(this.names.map((name, index) => [name, values[index]])) as LabelValues<T>;
  }

  override labels(...values: unknown[]): Histogram.Internal<T> {
    const labels = this.labelsOf(values);
    const series = this.series(labels);
    return {
      observe: (value: number) => series.observe(value),
      startTimer: (endLabels?: LabelValues<T>) => this.startTimer({ ...labels, ...endLabels }),
    } as Histogram.Internal<T>;
  }

  override zero(labels: LabelValues<T>): void {
    const series = this.series(labels) as Series;
    series.counts.fill(0);
    series.sum = 0;
    series.count = 0;
  }

  override remove(...values: unknown[]): void {
    this.seriesByKey.delete(this.keyOf(this.labelsOf(values) as Record<string, unknown>));
  }

  /** Empties every series. Series held by callers stay theirs and count on from zero. */
  override reset(): void {
    // prom-client's constructor calls reset() before this class's fields exist.
    if (this.seriesByKey === undefined) return;
    for (const series of this.seriesByKey.values()) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }

  /** What the registry formats for /metrics: prom-client's own shape, so the text is the same. */
  async getForPromString(): Promise<{
    name: string;
    help: string;
    type: 'histogram';
    values: ExportedValue[];
    aggregator: string;
  }> {
    const own = this as unknown as { name: string; help: string; aggregator: string };
    const values: ExportedValue[] = [];
    const bucketName = `${own.name}_bucket`;
    for (const series of this.seriesByKey.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, index) => {
        cumulative += series.counts[index]!;
        values.push({
          labels: { le: bound },
          sharedLabels: series.labels,
          value: cumulative,
          metricName: bucketName,
        });
      });
      values.push(
        { labels: { le: '+Inf' }, sharedLabels: series.labels, value: series.count, metricName: bucketName },
        { labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${own.name}_sum` },
        { labels: {}, sharedLabels: series.labels, value: series.count, metricName: `${own.name}_count` },
      );
    }
    return { name: own.name, help: own.help, type: 'histogram', values, aggregator: own.aggregator };
  }

  /** The values with their labels in one object, as prom-client's `get` returns them (workers' sums use it). */
  override async get(): Promise<Awaited<ReturnType<Histogram<T>['get']>>> {
    const exported = await this.getForPromString();
    return {
      ...exported,
      values: exported.values.map(({ labels, sharedLabels, value, metricName }) => ({
        labels: { ...labels, ...sharedLabels },
        value,
        metricName,
      })),
    } as unknown as Awaited<ReturnType<Histogram<T>['get']>>;
  }
}

/**
 * The series of a histogram by the values of two or three labels, in nested maps: no key string is built per
 * observation. Label values must come from a bounded set (routes, methods, statuses, bounded operation names).
 */
export function seriesLookup<T extends string>(
  histogram: SeriesHistogram<T>,
  names: readonly [T, T] | readonly [T, T, T],
): (first: string | number, second: string | number, third?: string | number) => HistogramSeries {
  type Level = Map<string | number | undefined, Level | HistogramSeries>;
  const root: Level = new Map();
  const step = (level: Level, value: string | number | undefined): Level => {
    let next = level.get(value) as Level | undefined;
    if (!next) {
      next = new Map();
      level.set(value, next);
    }
    return next;
  };
  return (first, second, third) => {
    const last = step(step(root, first), second);
    let series = last.get(third) as HistogramSeries | undefined;
    if (!series) {
      const values = [first, second, third];
      const labels = Object.fromEntries(names.map((name, index) => [name, values[index]]));
      series = histogram.series(labels as LabelValues<T>);
      last.set(third, series);
    }
    return series;
  };
}
