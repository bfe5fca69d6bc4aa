/**
 * What a scan has counted, across its attempts (and, through read marks, its invocations): the
 * distinct identities, the proven repeats, the record time of each identity, the highest record
 * time. A scan is complete when distinct + repeats + unidentified rows cover the rows it counted.
 */
import { type EngineScan, iso, maxOf } from './scan-types';

/** The identities of `ids` an earlier invocation of the scan did not read (its read marks). */
export type NotReadBefore = (ids: string[]) => Promise<string[]>;

export class ScanTally {
  /** Rows read by earlier invocations carry read marks; a new scan's memory is the whole story. */
  readonly #resumed: boolean;
  /** Every identity this invocation read (earlier pages and attempts). */
  readonly seenIdentities = new Set<string>();
  /** Identities first read by this invocation (earlier ones are counted in `scan.distinct`). */
  readonly #readHere = new Set<string>();
  #distinct: number;
  /**
   * Records beyond one per identity: rows that really share an identity (a door scanned twice in
   * one second). Only a single response proves it (offset drift repeats rows across pages), so
   * an identity counts as often as it appeared in one response, at most.
   */
  #extra: number;
  readonly #multiplicity = new Map<string, number>();
  /** The record time of each identity read, for verifying suspected repeats. */
  readonly #times = new Map<string, string>();
  /** Identities counted since the last saved progress, whose read marks are not written yet. */
  #unmarked: string[] = [];
  #maxRecordMs: number | undefined;

  constructor(
    scan: EngineScan,
    private readonly notReadBefore: NotReadBefore,
  ) {
    this.#resumed = (scan.distinct ?? 0) > 0;
    this.#distinct = scan.distinct ?? 0;
    this.#extra = scan.repeats ?? 0;
    this.#maxRecordMs = scan.maxRecordTime ? Date.parse(scan.maxRecordTime) : undefined;
  }

  get distinct(): number {
    return this.#distinct;
  }

  get maxRecordMs(): number | undefined {
    return this.#maxRecordMs;
  }

  noteRecordTime(ms: number | undefined): void {
    this.#maxRecordMs = maxOf(this.#maxRecordMs, ms);
  }

  /** Takes in one response's identities: the union, the distinct count, proven repeats. */
  async account(identities: readonly string[], recordTimes: ReadonlyMap<string, string>): Promise<void> {
    const inPage = new Map<string, number>();
    for (const id of identities) inPage.set(id, (inPage.get(id) ?? 0) + 1);
    const firstSeen = [...inPage.keys()].filter((id) => !this.seenIdentities.has(id));
    for (const id of firstSeen) this.seenIdentities.add(id);
    const fresh = this.#resumed ? await this.notReadBefore(firstSeen) : firstSeen;
    for (const id of fresh) this.#readHere.add(id);
    this.#distinct += fresh.length;
    this.#unmarked.push(...fresh);
    for (const [id, n] of inPage) {
      const known = this.#multiplicity.get(id) ?? 1;
      // Identities an earlier invocation read may have had their repeats counted there already.
      if (n > known && this.#readHere.has(id)) {
        this.#extra += n - known;
        this.#multiplicity.set(id, n);
      }
    }
    for (const [id, time] of recordTimes) this.#times.set(id, time);
  }

  /** Every row counted is identified: distinct records, proven repeats and rows without identity. */
  covers(rowsCounted: number, unidentified: number): boolean {
    return this.#distinct + this.#extra + unidentified >= rowsCounted;
  }

  /**
   * The record times of identities read more often across an attempt's pages than in any one
   * response: drift, or records that really share an identity and a page boundary.
   */
  suspectTimes(counts: ReadonlyMap<string, number>): string[] {
    const suspects = [...counts].filter(([id, n]) => n > (this.#multiplicity.get(id) ?? 1)).map(([id]) => id);
    return [...new Set(suspects.map((id) => this.#times.get(id)).filter((t) => t !== undefined))];
  }

  /**
   * Identities read more often across an attempt's pages than in any one response so far: those
   * without a record time, and those a response of their time did not prove (records that share an
   * identity at different times).
   */
  unprovenSuspects(counts: ReadonlyMap<string, number>): string[] {
    return [...counts].filter(([id, n]) => n > (this.#multiplicity.get(id) ?? 1)).map(([id]) => id);
  }

  /** Rows an attempt read (`counts`) of the identities whose record time is `time`. */
  rowsAt(time: string, counts: ReadonlyMap<string, number>): number {
    let rows = 0;
    for (const [id, n] of counts) if (this.#times.get(id) === time) rows += n;
    return rows;
  }

  /** The identities whose read marks are still to be written (and forgets them). */
  takeUnmarked(): string[] {
    const unmarked = this.#unmarked;
    this.#unmarked = [];
    return unmarked;
  }

  /** The scan's progress to save: where to resume and what it has counted. */
  progress(
    scan: EngineScan,
    at: { nextOffset: number; unidentified: number; pages: number; records: number },
  ) {
    const progress: EngineScan = {
      ...scan,
      nextOffset: at.nextOffset,
      pages: scan.pages + at.pages,
      records: scan.records + at.records,
      distinct: this.#distinct,
      unidentified: at.unidentified,
      repeats: this.#extra,
      ...(this.#maxRecordMs === undefined ? {} : { maxRecordTime: iso(this.#maxRecordMs) }),
    };
    return progress;
  }
}
