/**
 * Reading a scan's pages: the paged query from an offset, the one-response verification page, and
 * a page's records split into identified ones (with their record times) and ones to quarantine.
 */
import { DeadlineExceededError, type GymApiClient, MAX_PAGE_SIZE, type Page } from '../../gym-api';
import type { OperationName } from '../../gym-api/operations';
import { toInstant } from '../../sources/record-time';
import type { ClubContext, SourceDefinition } from '../../sources/source';
import { type QuarantineEntry, quarantineEntry } from './quarantine';
import { type EngineScan, type IdentifiedRecord, maxOf } from './scan-types';

/** Longest identity the bridge carries (UTF-8 bytes); a longer one is not a record number. */
export const MAX_IDENTITY_BYTES = 1024;

/**
 * Why an identity cannot identify a record, or undefined. Empty and blank identities name nobody.
 * A state source's identity is the member or prospect number itself (an event's subject, a
 * snapshot's key): over MAX_IDENTITY_BYTES it is not a record number. An append source's identity
 * is only ever hashed (seen keys, eventIds): any length will do, as the whole record of an
 * experimental source may be. Anything else, however odd (control characters, a lone surrogate, a
 * `#`), is a usable identity: the store keys it safely (state/keys.ts).
 */
export function identityProblem(
  id: string | undefined,
  kind: 'append' | 'state' = 'state',
): string | undefined {
  if (id === undefined) return 'record has no identity (required fields missing or blank)';
  if (typeof id !== 'string') return `record identity is a ${typeof id}, not a string`;
  if (id.trim() === '') return `record identity is ${id === '' ? 'empty' : 'blank (whitespace only)'}`;
  if (kind === 'append') return undefined;
  const bytes = Buffer.byteLength(id, 'utf8');
  if (bytes > MAX_IDENTITY_BYTES) {
    return `record identity is ${bytes} bytes long; over ${MAX_IDENTITY_BYTES} bytes it cannot identify a record`;
  }
  return undefined;
}

function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 300);
}

/**
 * The identity a row without one is counted under: its whole raw record (the quarantine key). Rows
 * are counted to find offset drift; a bad record read twice across pages is drift like any other.
 * The prefix keeps it apart from record numbers.
 */
const RAW_ROW = '\u0000raw|';
export const rawRowIdentity = (quarantineKey: string) => `${RAW_ROW}${quarantineKey}`;
export const isRawRowIdentity = (id: string) => id.startsWith(RAW_ROW);
/** A record over the response cap, counted under its fingerprint (InvalidItem.rowIdentity). */
export const isOversizedRowIdentity = (id: string) => id.startsWith(`${RAW_ROW}oversized|`);

export interface ReadPage {
  readonly identified: IdentifiedRecord[];
  readonly quarantine: QuarantineEntry[];
  /**
   * The identities the page's rows are counted under (not in page order): each identified record's, and
   * each quarantined row's whole raw record (rawRowIdentity). Rows past the limits (cut copies)
   * have none: they stay unidentified rows, except a record over the response cap, counted under
   * the fingerprint of its first 16 KB (InvalidItem.rowIdentity).
   */
  readonly rows: string[];
  /** The record time of each identity that has one. */
  readonly times: Map<string, string>;
  readonly maxRecordMs: number | undefined;
}

export class ScanPageReader {
  constructor(
    private readonly client: GymApiClient,
    private readonly source: SourceDefinition,
    private readonly ctx: ClubContext,
    private readonly limits: { readonly deadlineMs: number; readonly pageSize?: number },
  ) {}

  /**
   * The scan's pages from `startOffset`. A sweep asks for its next full pages ahead, side by side
   * (the client's `prefetch`), as many as its last sweep's rows (`sweepRows`) fill past the offset.
   */
  pages(scan: EngineScan, startOffset: number, windowRows?: number): AsyncGenerator<Page<OperationName>> {
    const query: Record<string, string> = scan.fromdate ? { [this.source.filterParam]: scan.fromdate } : {};
    const pageSize = this.limits.pageSize ?? MAX_PAGE_SIZE;
    const prefetch =
      scan.mode === 'sweep' && windowRows !== undefined
        ? Math.max(0, Math.floor(windowRows / pageSize) - Math.floor(startOffset / pageSize))
        : 0;
    return this.client.pages(this.source.operation, query as never, {
      startOffset,
      deadline: this.limits.deadlineMs,
      ...(this.limits.pageSize ? { pageSize: this.limits.pageSize } : {}),
      ...(prefetch > 0 ? { prefetch } : {}),
    });
  }

  /**
   * The records from `time` on (the filter compares the field the record time is read from), in
   * one response as large as the API allows; undefined when out of time. When that response is over
   * the response cap (a huge record later in the window), the client answers with fewer records
   * (a cut page): then one response of just the group's size (`groupRows` rows were read at `time`)
   * is asked for, which a group of ordinary records fits in.
   */
  async verificationPage(time: string, groupRows = 1): Promise<Page<OperationName> | undefined> {
    const groupSize = Math.min(MAX_PAGE_SIZE, Math.max(2, groupRows));
    let last: Page<OperationName> | undefined;
    for (const pageSize of groupSize < MAX_PAGE_SIZE ? [MAX_PAGE_SIZE, groupSize] : [MAX_PAGE_SIZE]) {
      const page = await this.#firstPage(time, pageSize);
      if (!page) return last;
      last = page;
      const whole = page.limit >= pageSize || page.rawCount < page.limit;
      if (whole) return page;
    }
    return last;
  }

  /**
   * One response of the scan's own query from `offset`, `limit` records long (at most the API's
   * page size), or undefined when it does not come whole (cut by the response cap) or out of time.
   */
  async spanPage(scan: EngineScan, offset: number, limit: number): Promise<Page<OperationName> | undefined> {
    if (limit < 1 || limit > MAX_PAGE_SIZE) return undefined;
    const page = await this.#firstPage(scan.fromdate, limit, offset);
    return page && page.limit >= limit ? page : undefined;
  }

  async #firstPage(
    time: string | undefined,
    pageSize: number,
    startOffset = 0,
  ): Promise<Page<OperationName> | undefined> {
    const query = time ? { [this.source.filterParam]: time } : {};
    try {
      for await (const page of this.client.pages(this.source.operation, query as never, {
        deadline: this.limits.deadlineMs,
        pageSize,
        ...(startOffset ? { startOffset } : {}),
      })) {
        return page;
      }
    } catch (err) {
      if (!(err instanceof DeadlineExceededError)) throw err;
    }
    return undefined;
  }

  /**
   * A page's records: identified (with record times) or quarantined (invalid, no usable identity,
   * or a record the source's functions cannot read: whatever a record holds, it never fails the
   * page).
   */
  read(page: Page<OperationName>): ReadPage {
    const quarantine = page.invalid.map((bad) => quarantineEntry(bad.raw, bad.issues));
    const rows = page.invalid.flatMap((bad, i) =>
      bad.cut
        ? bad.rowIdentity
          ? [rawRowIdentity(bad.rowIdentity)]
          : []
        : [rawRowIdentity(quarantine[i]!.key)],
    );
    const identified: IdentifiedRecord[] = [];
    const times = new Map<string, string>();
    let maxRecordMs: number | undefined;
    const identity = this.source.identity as (i: unknown) => string | undefined;
    const recordTime = this.source.recordTime as ((i: unknown) => string | null | undefined) | undefined;
    for (const item of page.items) {
      let id: string | undefined;
      let time: string | null | undefined;
      let instant: number | undefined;
      try {
        id = identity(item);
        const problem = identityProblem(id, this.source.kind);
        if (problem) {
          const entry = quarantineEntry(item, problem);
          quarantine.push(entry);
          rows.push(rawRowIdentity(entry.key));
          continue;
        }
        time = recordTime?.(item);
        instant = time ? toInstant(time, this.source.filterZone, this.ctx) : undefined;
      } catch (err) {
        const entry = quarantineEntry(item, `record could not be read: ${errorText(err)}`);
        quarantine.push(entry);
        rows.push(rawRowIdentity(entry.key));
        continue;
      }
      if (time && instant !== undefined && Number.isFinite(instant)) {
        maxRecordMs = maxOf(maxRecordMs, instant);
        times.set(id!, time);
        identified.push({ id: id!, item, atMs: instant });
      } else identified.push({ id: id!, item });
      rows.push(id!);
    }
    return { identified, quarantine, rows, times, maxRecordMs };
  }
}
