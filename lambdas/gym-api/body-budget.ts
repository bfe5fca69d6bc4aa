/**
 * Bounded memory for response bodies, whatever the upstream sends (docs/client.md, "Limits"):
 *
 * - every body is read as a stream and cut at a cap: a data page at `maxResponseBytes` (default
 *   DEFAULT_MAX_RESPONSE_BYTES, about 13,000 records of the sandbox's size, 500 records of 16 KB
 *   each), an error body or a token response at SMALL_BODY_BYTES (only an excerpt is ever used);
 * - a body past PAGE_BODY_BYTES needs one of the process's PAGE_SLOTS page slots before it is read
 *   further, and one past LARGE_BODY_BYTES one of its few large-body slots as well; it keeps them
 *   until its page has been processed. A page asked for ahead (pages-ahead.ts) takes no slot: at
 *   most AHEAD_SLOTS of them are held, each cut at 1 MB, so it never waits on a gate while the page
 *   before it holds a slot (a scan holds one page at a time otherwise: no wait can close a circle).
 *
 * So the pages in memory are bounded by the process, not by how many clubs poll side by side.
 * Measured (a sandbox page of 500 members, 312 KB): a page held after parsing and validation takes
 * about 1.4x its body in heap; parsing is synchronous, so only one page at a time is in its parse
 * peak (about 3.7x). A 256 MB Lambda polling 20 clubs with 8 sources each side by side holds at
 * most (160 x 128 KB + 48 x 1 MB + 8 x 1 MB (ahead) + 2 x 8 MB) x 1.4, about 128 MB of pages (10
 * clubs: about 115 MB, 146 MB before the page slots); one club (`poll --once`) at most (8 x 1 MB +
 * 8 x 1 MB + 2 x 8 MB) x 1.4, about 45 MB (its 8 scans never need more slots). The rest of a poll's
 * memory is bounded by its heavy polls, as many at a time as the function's memory budget holds
 * (engine/club-poll/heavy-polls.ts). The bench's batches never fill these slots (their pages are at
 * most ~0.7 MB, one a scan); a process holding all of them at once would be past the budget: this
 * bound is what no upstream can exceed, not what the budget was measured with.
 */
import { type Release, Slots } from '../common/slots';
import { DeadlineExceededError, RequestAbortedError } from './errors';

export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Error bodies and token responses: read this much at most (the rest is dropped, not an error). */
export const SMALL_BODY_BYTES = 64 * 1024;
/** A body past this needs a page slot (PAGE_SLOTS a process): smaller ones are cheap to hold at once. */
export const PAGE_BODY_BYTES = 128 * 1024;
export const PAGE_SLOTS = 48;
export const LARGE_BODY_BYTES = 1024 * 1024;
export const LARGE_BODY_SLOTS = 2;

export type { Release };

const noop: Release = () => undefined;

/** Slots (common/slots.ts) whose waits end in the client's errors: aborted, or past the deadline. */
export class BodyGate {
  readonly #slots: Slots;

  /** `what`: the slot's name in the error of a wait cut by its deadline. */
  constructor(
    readonly slots: number,
    readonly what = 'a large response',
  ) {
    this.#slots = new Slots(slots);
  }

  get free(): number {
    return this.#slots.free;
  }

  async acquire(
    operation: string,
    signal?: AbortSignal,
    deadline?: number,
    now = Date.now,
  ): Promise<Release> {
    const got = await this.#slots.acquire({
      ...(signal ? { signal } : {}),
      ...(deadline === undefined ? {} : { waitMs: deadline - now() }),
    });
    if (got === 'aborted') {
      throw new RequestAbortedError(`${operation}: aborted by the caller`, {
        operation,
        cause: signal?.reason,
      });
    }
    if (got === 'timeout') {
      throw new DeadlineExceededError(`${operation}: deadline reached waiting to read ${this.what}`, {
        operation,
      });
    }
    return got;
  }
}

/** The process's gates: shared by every client, as memory is. */
export const pageBodyGate = new BodyGate(PAGE_SLOTS, 'a page (every page slot is held)');
export const largeBodyGate = new BodyGate(LARGE_BODY_SLOTS);

export { noop as releaseNothing };
