/** The visits of one club: the only append-heavy table, so it gets its own column store. */
import { lowerBound, type OrderedView, upperBound } from './sorted-index';

/** Visits, stored column-wise so a million of them stay small. Sorted by local visit time. */
export class VisitStore implements OrderedView {
  readonly keys: number[] = [];
  readonly members: number[] = [];
  readonly doors: number[] = [];

  get length(): number {
    return this.keys.length;
  }

  keyAt(index: number): number {
    return this.keys[index] as number;
  }

  lowerBound(key: number): number {
    return lowerBound(this.keys, key);
  }

  insert(key: number, memberIndex: number, door: number): void {
    const last = this.keys[this.keys.length - 1];
    if (last === undefined || last <= key) {
      this.keys.push(key);
      this.members.push(memberIndex);
      this.doors.push(door);
      return;
    }
    const at = upperBound(this.keys, key);
    this.keys.splice(at, 0, key);
    this.members.splice(at, 0, memberIndex);
    this.doors.splice(at, 0, door);
  }
}
