/** A set of small integers with O(1) add, delete and uniform random pick. */
import type { SeededRandom } from './sandbox-random';

export class IndexedSet {
  private readonly values: number[] = [];
  private readonly positions = new Map<number, number>();

  get size(): number {
    return this.values.length;
  }

  has(value: number): boolean {
    return this.positions.has(value);
  }

  add(value: number): void {
    if (this.positions.has(value)) return;
    this.positions.set(value, this.values.length);
    this.values.push(value);
  }

  delete(value: number): void {
    const at = this.positions.get(value);
    if (at === undefined) return;
    const last = this.values.pop() as number;
    if (last !== value) {
      this.values[at] = last;
      this.positions.set(last, at);
    }
    this.positions.delete(value);
  }

  pick(rng: SeededRandom): number | undefined {
    if (this.values.length === 0) return undefined;
    return this.values[Math.floor(rng.next() * this.values.length)];
  }

  toArray(): number[] {
    return [...this.values];
  }
}
