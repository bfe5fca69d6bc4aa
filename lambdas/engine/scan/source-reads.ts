/**
 * How one poll of a source reads what decides "already published?" (its seen set and seen digest)
 * and "what changed?" (its snapshots), and what it leaves the next poll (state/fresh-reads.ts).
 *
 * Reads are eventually consistent (half the read units) unless the source's cursor carries the
 * fresh-read mark (its previous poll wrote, or a poll stopped before its closing write) or was never
 * committed (`readsFresh`). Polls of
 * a club can be 15 s apart (the fast lane), and a read that missed the previous poll's seen entries
 * or snapshots would publish a baseline record as new, or a transition from a state already left.
 *
 * The scan's first write of seen entries, a digest or snapshots first marks its cursor (in the
 * club session's memory: it goes out with the cursor, in the closing write or a checkpoint, and a
 * failure recorded on the cursor keeps it), so whatever ends the poll the mark is in the state it
 * commits; a poll that stops before any commit is an unclean stop, which marks every source.
 */
import { needsFreshReads } from '../../state/fresh-reads';
import type { Cursor } from '../../state/store';

/**
 * Whether a poll of the cursor's source reads fresh: the mark, or a cursor never committed (its
 * source's last poll, if it had one, stopped before its close and left no mark: a first baseline
 * that died, whose next baseline is the one poll that pays).
 */
export function readsFresh(cursor: Cursor): boolean {
  return needsFreshReads(cursor) || cursor.version === 0;
}

export class SourceReads {
  #read = false;
  #wrote = false;

  constructor(
    /** Read strongly consistent (a whole read unit per 4 KB instead of half). */
    readonly consistent: boolean,
    /** Marks the source's cursor: its next poll reads fresh. */
    private readonly mark: () => Promise<void> = async () => {},
  ) {}

  /** Whether this poll read the source's seen set, digest or snapshots. */
  get read(): boolean {
    return this.#read;
  }

  /** Whether this poll wrote seen entries, a seen digest or snapshots of the source. */
  get wrote(): boolean {
    return this.#wrote;
  }

  /**
   * Whether the poll leaves the next one free to read eventually consistent: it read (fresh, when
   * asked to) and wrote nothing. A poll that read nothing keeps a mark it found.
   */
  get clean(): boolean {
    return this.#read && !this.#wrote;
  }

  /** The options of a read of the seen set, digest or snapshots (noted as read). */
  readOptions(): { readonly consistentRead: boolean } {
    this.#read = true;
    return { consistentRead: this.consistent };
  }

  /** Before a write of seen entries, a seen digest or snapshots: the cursor is marked first. */
  async beforeWrite(): Promise<void> {
    if (this.#wrote) return;
    await this.mark();
    this.#wrote = true;
  }
}
