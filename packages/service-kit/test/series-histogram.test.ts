// SeriesHistogram against prom-client's own Histogram: the same observations must give the same /metrics text and
// the same sums across workers, however they were made (held series, observe, labels(), startTimer).
import { AggregatorRegistry, Histogram, Registry } from 'prom-client';
import { SeriesHistogram, seriesLookup } from '../src';

const BUCKETS = [0.001, 0.01, 0.1, 1];
const CONFIG = {
  name: 'test_duration_seconds',
  help: 'test durations',
  labelNames: ['kind', 'table'] as const,
  buckets: BUCKETS,
};

/** A prom-client Histogram and a SeriesHistogram, each in its own registry, under the same name. */
function pair() {
  const reference = new Registry();
  const ours = new Registry();
  return {
    reference,
    ours,
    prom: new Histogram<'kind' | 'table'>({
      ...CONFIG,
      labelNames: [...CONFIG.labelNames],
      registers: [reference],
    }),
    series: new SeriesHistogram<'kind' | 'table'>({
      ...CONFIG,
      labelNames: [...CONFIG.labelNames],
      registers: [ours],
    }),
  };
}

const OBSERVATIONS: [string, string, number][] = [
  ['select', 'asns', 0.0004],
  ['select', 'asns', 0.001], // on a bound: counted in that bucket, as prom-client does
  ['select', 'asns', 0.05],
  ['select', 'organizations', 0.0002],
  ['insert', 'asns', 3], // above the largest bound: only in +Inf, the sum and the count
];

describe('SeriesHistogram', () => {
  it('writes the same /metrics text as prom-client for the same observations through held series', async () => {
    const { reference, ours, prom, series } = pair();
    const seriesOf = seriesLookup(series, ['kind', 'table']);
    for (const [kind, table, value] of OBSERVATIONS) {
      prom.observe({ kind, table }, value);
      seriesOf(kind, table).observe(value);
    }
    const text = await ours.metrics();
    expect(text).toBe(await reference.metrics());
    expect(text).toContain('test_duration_seconds_bucket{le="0.001",kind="select",table="asns"} 2');
    expect(text).toContain('test_duration_seconds_bucket{le="+Inf",kind="insert",table="asns"} 1');
    expect(text).toContain('test_duration_seconds_count{kind="select",table="asns"} 3');
  });

  it('keeps prom-client meaning for observe, labels(), startTimer, zero and remove', async () => {
    const { reference, ours, prom, series } = pair();
    for (const histogram of [prom, series] as Histogram<'kind' | 'table'>[]) {
      histogram.observe({ kind: 'select', table: 'asns' }, 0.02);
      histogram.labels('select', 'asns').observe(0.2);
      histogram.labels({ kind: 'update' }).observe(0.002);
      histogram.zero({ kind: 'delete', table: 'links' });
      histogram.observe({ kind: 'gone', table: 'x' }, 1);
      histogram.remove('gone', 'x');
    }
    expect(await ours.metrics()).toBe(await reference.metrics());
    const endProm = prom.startTimer({ kind: 'timed' });
    const endOurs = series.startTimer({ kind: 'timed' });
    endProm({ table: 't' });
    endOurs({ table: 't' });
    expect(await ours.metrics()).toContain('test_duration_seconds_count{kind="timed",table="t"} 1');
  });

  it('sums workers as prom-client does (get() is what the primary gathers)', async () => {
    const first = pair();
    const second = pair();
    first.prom.observe({ kind: 'select', table: 'asns' }, 0.005);
    first.series.observe({ kind: 'select', table: 'asns' }, 0.005);
    second.prom.observe({ kind: 'select', table: 'asns' }, 0.5);
    second.series.observe({ kind: 'select', table: 'asns' }, 0.5);
    const reference = AggregatorRegistry.aggregate([
      await first.reference.getMetricsAsJSON(),
      await second.reference.getMetricsAsJSON(),
    ]);
    const ours = AggregatorRegistry.aggregate([
      await first.ours.getMetricsAsJSON(),
      await second.ours.getMetricsAsJSON(),
    ]);
    expect(await ours.metrics()).toBe(await reference.metrics());
    expect(await ours.metrics()).toContain('test_duration_seconds_count{kind="select",table="asns"} 2');
  });

  it('hands out one series per label set, and a held series counts on from zero after a reset', async () => {
    const { ours, series } = pair();
    const seriesOf = seriesLookup(series, ['kind', 'table']);
    const held = seriesOf('select', 'asns');
    expect(seriesOf('select', 'asns')).toBe(held);
    expect(series.series({ kind: 'select', table: 'asns' })).toBe(held);
    expect(seriesOf('select', 'organizations')).not.toBe(held);
    held.observe(0.5);
    series.reset();
    held.observe(0.05);
    const text = await ours.metrics();
    expect(text).toContain('test_duration_seconds_count{kind="select",table="asns"} 1');
    expect(text).toContain('test_duration_seconds_sum{kind="select",table="asns"} 0.05');
  });

  it('rejects an unknown label and a value that is not a finite number, as prom-client does', () => {
    const { series } = pair();
    expect(() => series.series({ kind: 'select', colour: 'red' } as never)).toThrow(/colour/);
    expect(() => series.series({ kind: 'select' }).observe(Number.NaN)).toThrow(TypeError);
    expect(() => series.observe({ kind: 'select' }, Number.POSITIVE_INFINITY)).toThrow(TypeError);
  });

  it('exports a histogram without labels before its first observation, as prom-client does', async () => {
    const reference = new Registry();
    const ours = new Registry();
    new Histogram({ name: 'bare_seconds', help: 'bare', buckets: BUCKETS, registers: [reference] });
    new SeriesHistogram({ name: 'bare_seconds', help: 'bare', buckets: BUCKETS, registers: [ours] });
    expect(await ours.metrics()).toBe(await reference.metrics());
  });
});
