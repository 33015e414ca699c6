// Seeded randomness for the generator. pure-rand's xoroshiro128+ is a maintained, fast PRNG whose
// sequence is fixed by its seed on every platform, which is what makes two runs byte-identical.
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

export class Random {
  private readonly generator: RandomGenerator;

  constructor(seed: number) {
    this.generator = xoroshiro128plus(seed | 0);
  }

  /** Uniform integer in [from, to], both included. */
  int(from: number, to: number): number {
    return uniformInt(this.generator, from, to);
  }

  /** Uniform float in [0, 1). */
  float(): number {
    return uniformFloat64(this.generator);
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Random.pick called on an empty list');
    return items[this.int(0, items.length - 1)] as T;
  }

  /** Index drawn with the given relative weights (linear scan: for short weight lists). */
  weightedIndex(weights: readonly number[]): number {
    let total = 0;
    for (const weight of weights) total += weight;
    let target = this.float() * total;
    for (let index = 0; index < weights.length; index++) {
      target -= weights[index] as number;
      if (target < 0) return index;
    }
    return weights.length - 1;
  }

  /** A 31-bit seed for an independent child generator. */
  childSeed(): number {
    return this.int(0, 0x7fffffff);
  }

  /** Pareto-distributed value >= 1 (heavy tail: most draws small, a few very large). */
  pareto(alpha: number): number {
    return Math.pow(1 - this.float(), -1 / alpha);
  }

  shuffle<T>(items: T[]): T[] {
    for (let index = items.length - 1; index > 0; index--) {
      const other = this.int(0, index);
      const swap = items[index] as T;
      items[index] = items[other] as T;
      items[other] = swap;
    }
    return items;
  }

  hex(length: number): string {
    let text = '';
    for (let index = 0; index < length; index++) text += this.int(0, 15).toString(16);
    return text;
  }
}

/**
 * Draws indices in proportion to weights that change as items are added (preferential attachment).
 * A Fenwick tree keeps each draw and update O(log n) even with 80,000 candidates.
 */
export class WeightedPicker {
  private readonly tree: Float64Array;
  private readonly weights: Float64Array;
  private total = 0;

  constructor(readonly capacity: number) {
    this.tree = new Float64Array(capacity + 1);
    this.weights = new Float64Array(capacity);
  }

  get totalWeight(): number {
    return this.total;
  }

  weightOf(index: number): number {
    return this.weights[index] as number;
  }

  add(index: number, delta: number): void {
    this.weights[index] = (this.weights[index] as number) + delta;
    this.total += delta;
    for (let node = index + 1; node <= this.capacity; node += node & -node) {
      this.tree[node] = (this.tree[node] as number) + delta;
    }
  }

  set(index: number, weight: number): void {
    this.add(index, weight - (this.weights[index] as number));
  }

  /** An index with probability weight/total; -1 when every weight is zero. */
  draw(random: Random): number {
    if (this.total <= 0) return -1;
    let target = random.float() * this.total;
    let position = 0;
    let step = 1;
    while (step * 2 <= this.capacity) step *= 2;
    for (; step > 0; step >>= 1) {
      const next = position + step;
      if (next <= this.capacity && (this.tree[next] as number) <= target) {
        position = next;
        target -= this.tree[next] as number;
      }
    }
    // Guard against float rounding landing on a zero-weight slot at the end.
    while (position < this.capacity && (this.weights[position] as number) <= 0) position++;
    return position < this.capacity ? position : -1;
  }
}
