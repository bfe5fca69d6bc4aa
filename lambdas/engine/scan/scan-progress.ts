/**
 * Whether a scan's pages make progress through the upstream's records (the engine's half of the
 * paging checks; the client's half is PageProgress in gym-api/paging-checks.ts).
 */
import { createHash } from 'node:crypto';
import { type Page, PagingStalledError } from '../../gym-api';
import type { OperationName } from '../../gym-api/operations';

/**
 * Whether an attempt's pages bring records it has not read: an upstream that ignores `offset` serves
 * the records of its first page at every offset (shuffled, or shifted by what was inserted since).
 * Full pages holding exactly the records of earlier pages twice in a row, or (after a few pages)
 * fewer distinct records than a third of the rows, stops the scan with a PagingStalledError: the
 * source fails with that reason after a bounded number of requests instead of paging until the
 * deadline. Offset drift repeats a few records, never a whole page; unstable ordering of records
 * with equal times (random pages over a group) keeps about 63% of a group's rows distinct.
 */
export class ScanProgress {
  readonly #pageSets = new Set<string>();
  #repeatsInARow = 0;
  #identifiedRows = 0;
  #pages = 0;

  constructor(private readonly operation: string) {}

  check(page: Page<OperationName>, identities: readonly string[], distinct: number): void {
    // Only full pages of several records count: a record asked for alone (next to one over the
    // response cap) or a short last page says nothing about the upstream's offsets.
    const full = page.rawCount >= page.limit && page.limit > 1 && new Set(identities).size > 1;
    if (!full) {
      this.#repeatsInARow = 0;
      return;
    }
    this.#pages++;
    this.#identifiedRows += identities.length;
    const set = createHash('sha256')
      .update([...new Set(identities)].sort().join('\u0000'))
      .digest('base64url');
    this.#repeatsInARow = this.#pageSets.has(set) ? this.#repeatsInARow + 1 : 0;
    this.#pageSets.add(set);
    // Twice in a row: unstable ordering over a group of equal times can repeat a tiny page's set
    // once by chance, never twice running.
    if (this.#repeatsInARow >= 2) {
      throw new PagingStalledError(
        `${this.operation}: the pages up to offset ${page.offset} hold exactly the records of earlier pages: the upstream does not honour offset; paging stopped`,
        { operation: this.operation, status: 200 },
      );
    }
    if (this.#pages >= 4 && distinct * 3 < this.#identifiedRows) {
      throw new PagingStalledError(
        `${this.operation}: ${this.#identifiedRows} rows read in ${this.#pages} full pages held only ${distinct} distinct records: the upstream serves the same records at every offset; paging stopped`,
        { operation: this.operation, status: 200 },
      );
    }
  }
}
