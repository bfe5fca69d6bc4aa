/**
 * The policy for answers over the response cap (`maxResponseBytes`), one scan at a time: a page
 * over the cap is asked again with a tenth of the records, down to one; a single record over the
 * cap is skipped as an invalid item once two answers for it begin alike (the record itself is that
 * large), or after MAX_ASKS_ALONE answers that never do; more than MAX_OVERSIZED_IN_A_ROW skipped in
 * a row mean the upstream ignores `limit` (ResponseTooLargeError). An answer over the cap whose
 * `href` names another request is refused as stale, and one whose first bytes show several records
 * never counts toward skipping the record asked for (docs/security.md).
 */
import { logger } from '../common/logger';
import { ResponseTooLargeError } from './errors';
import type { OperationName } from './operations';
import type { Page } from './page-reader';
import { checkAnswersRequest } from './paging-checks';

/**
 * Records in a row that are over the response cap on their own, each skipped as an invalid item,
 * before the client gives up (an upstream that ignores `limit` sends every response too large).
 */
export const MAX_OVERSIZED_IN_A_ROW = 10;
/**
 * Answers over the cap for one record asked for alone before it is skipped though no two began
 * alike (an upstream that stamps every answer): a bounded cost, never a source stopped.
 */
export const MAX_ASKS_ALONE = 4;

/** Cleaning upstream text of the client's credentials (DataRequests). */
export interface UpstreamTextCleaner {
  /** A link (an `href`): the credentials removed, nothing else touched, so it still parses. */
  link(text: string): string;
  /**
   * Text cut where a read stopped: the credentials and anything shaped like a key or token
   * removed, and the start of a credential left at the cut.
   */
  cut(text: string): string;
}

/** What the paging loop does after an answer over the cap. */
export type OverCapStep<N extends OperationName> =
  | { readonly action: 'ask-fewer'; readonly size: number }
  | { readonly action: 'ask-again' }
  | { readonly action: 'skip'; readonly page: Page<N> };

/** The answers over the cap of one scan: what to ask next, which record to skip, when to give up. */
export class OverCapPolicy {
  #skippedInARow = 0;
  /** The heads of the over-cap answers for the record at `offset`, asked for alone. */
  #alone: { offset: number; heads: string[] } | undefined;

  constructor(
    private readonly operation: string,
    /** Cleans upstream text that may quote a credential of the client (DataRequests). */
    private readonly clean: UpstreamTextCleaner,
  ) {}

  /** A page read within the cap: the count of records skipped in a row starts again. */
  answered(): void {
    this.#skippedInARow = 0;
  }

  /**
   * The step after `err`, the answer over the cap to `url` (`size` records from `offset`): ask
   * for fewer records, ask for the record alone again, or skip it (the page that stands for it).
   * Throws StaleResponseError or ResponseTooLargeError when paging cannot go on.
   */
  next<N extends OperationName>(
    err: ResponseTooLargeError,
    url: string,
    offset: number,
    size: number,
  ): OverCapStep<N> {
    const op = this.operation;
    // An answer over the cap that names another request (a previous response served again)
    // says nothing of the records at this offset: refused like any stale page.
    const href = hrefInHead(err.head);
    checkAnswersRequest(href === undefined ? undefined : this.clean.link(href), url, op);
    if (size > 1) {
      logger.warn('gym-api page over the response cap; asking for fewer records', {
        operation: op,
        offset,
        limit: size,
        error: err.message,
      });
      return { action: 'ask-fewer', size: Math.max(1, Math.floor(size / 10)) };
    }
    // Asked for alone and still too large. Skipped once two answers begin alike (the record
    // itself is that large); answers that differ (a one-off padded answer, an upstream blip)
    // are asked again, so a real record is never skipped for them. Bounded: MAX_ASKS_ALONE.
    if (this.#alone?.offset !== offset) this.#alone = { offset, heads: [] };
    const alone = this.#alone;
    // An answer of several records to a request for one ignores `limit`: it proves nothing of
    // the record at this offset, so it never counts toward skipping it.
    const several = headHoldsSeveralRecords(err.head);
    const agreed = !several && alone.heads.includes(err.head);
    alone.heads.push(several ? '' : err.head);
    if (!agreed && alone.heads.length < MAX_ASKS_ALONE) return { action: 'ask-again' };
    if (several) {
      throw new ResponseTooLargeError(
        `${op}: answers to a request for one record (offset ${offset}) hold several and stay over the cap: the upstream ignores limit`,
        { operation: op, status: 200, bytes: err.bytes, limitBytes: err.limitBytes },
      );
    }
    if (++this.#skippedInARow > MAX_OVERSIZED_IN_A_ROW) {
      throw new ResponseTooLargeError(
        `${op}: responses stay over the cap one record at a time (${MAX_OVERSIZED_IN_A_ROW} in a row up to offset ${offset}): the upstream ignores limit, or sends records of several MB`,
        { operation: op, status: 200, bytes: err.bytes, limitBytes: err.limitBytes },
      );
    }
    return { action: 'skip', page: oversizedRecordPage<N>(op, offset, err, this.clean) };
  }
}

/**
 * The page that stands for one record over the response cap (asked for alone and still too large):
 * one invalid item holding what was read of it, so the record is quarantined and paging goes on.
 */
function oversizedRecordPage<N extends OperationName>(
  operation: string,
  offset: number,
  err: ResponseTooLargeError,
  clean: UpstreamTextCleaner,
): Page<N> {
  const raw = {
    gymBridge: 'record over the response cap, not read',
    operation,
    bytes: err.bytes,
    limitBytes: err.limitBytes,
    // What `data` started with: the quarantine key (a hash of the raw) stays stable across polls.
    start: clean.cut(err.prefix),
  };
  return {
    offset,
    limit: 1,
    items: [],
    invalid: [
      {
        index: 0,
        raw,
        issues: `data[0]: the record at offset ${offset} is over the ${(err.limitBytes / 1024 / 1024).toFixed(1)} MB response cap on its own; skipped`,
        cut: true,
        ...(err.fingerprint ? { rowIdentity: `oversized|${operation}|${err.fingerprint}` } : {}),
      },
    ],
    rawCount: 1,
  };
}

/**
 * The `href` an answer over the response cap states before its `data` (what was read of it: its
 * first bytes), or undefined when it states none there. Lets a stale answer over the cap be told
 * from a record over the cap: an upstream or cache that serves a previous response again.
 */
function hrefInHead(head: string): string | undefined {
  const data = head.indexOf('"data"');
  const before = data >= 0 ? head.slice(0, data) : head;
  const found = /"href"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(before);
  if (!found) return undefined;
  try {
    const href: unknown = JSON.parse(found[1]!);
    return typeof href === 'string' ? href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether what was read of an answer over the cap shows `data` holding more than one record (the
 * first one ends, a second begins): an answer to a request for one record that ignores `limit`,
 * which says nothing of the record at its offset being large. False when the head ends inside the
 * first record (that record alone is past the head) or shows no `data`.
 */
function headHoldsSeveralRecords(head: string): boolean {
  const open = /"data"\s*:\s*\[\s*/.exec(head);
  if (!open) return false;
  let depth = 0;
  let inString = false;
  for (let i = open.index + open[0].length; i < head.length; i++) {
    const c = head[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth < 0) return false;
    } else if (c === ',' && depth === 0) return true;
  }
  return false;
}
