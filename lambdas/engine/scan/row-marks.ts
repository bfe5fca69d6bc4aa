/**
 * Which rows of a state source's scan need their snapshot read (docs/state.md, "Rows the last scan
 * committed"). The cursor's marks (state/committed-rows.ts) name the rows the last completed scan
 * left committed, each with the hash of its tracked fields: a row that comes back with the same
 * mark is unchanged and has no intent, so its snapshot need not be read.
 *
 * The marks are trusted as the cursor holds them when the scan starts: the club session drops them
 * when the poll before stopped without its closing write, and every scan drops them from the
 * cursor before it writes a snapshot, so only a completed scan's close can store them. Within the
 * scan, a row this scan has already compared is judged by what this scan committed for it, never
 * by the old marks (it may have changed and changed back since).
 */
import { decodeRowMarks, encodeRowMarks, rowMark } from '../../state/committed-rows';

/**
 * Rows of a scan remembered with what it committed for them: the marks a completed scan stores
 * are the newest of these (the club item holds ~50-120). Past it, the oldest are forgotten and the
 * cursor's marks are no longer trusted (a forgotten row may have been written).
 */
const REMEMBERED_ROWS = 1024;
/** Marks a scan offers its cursor: more than the club item's spare KB can hold. */
const OFFERED_MARKS = 256;

export class RowMarks {
  readonly #trusted: ReadonlySet<string>;
  /** This scan's rows, oldest first, with the mark of what is committed for each. */
  readonly #scanned = new Map<string, string>();
  #forgot = false;

  /** `stored`: the cursor's `committedRows` when the scan started. */
  constructor(stored: string | undefined) {
    this.#trusted = new Set(decodeRowMarks(stored) ?? []);
  }

  /** True when the row's committed snapshot is known to hold `hash` with no intent. */
  unchanged(id: string, hash: string): boolean {
    const mark = rowMark(id, hash);
    const scanned = this.#scanned.get(id);
    if (scanned !== undefined) return scanned === mark;
    return !this.#forgot && this.#trusted.has(mark);
  }

  /** After a page committed: the row's committed snapshot holds `hash`, with no intent. */
  committed(id: string, hash: string): void {
    this.#scanned.delete(id);
    this.#scanned.set(id, rowMark(id, hash));
    if (this.#scanned.size > REMEMBERED_ROWS) {
      this.#scanned.delete(this.#scanned.keys().next().value as string);
      this.#forgot = true;
    }
  }

  /** The marks a completed scan leaves in its cursor (newest last); undefined when none. */
  stored(): string | undefined {
    return this.#scanned.size === 0
      ? undefined
      : encodeRowMarks([...this.#scanned.values()].slice(-OFFERED_MARKS));
  }
}
