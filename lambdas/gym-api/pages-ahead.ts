/**
 * Pages asked for ahead: a scan whose length is roughly known (a sweep re-reading ten days), once
 * its first page came back whole (its token accepted, its size as asked), asks for its next full
 * pages side by side, so it waits for about two responses instead of one per page. The pages
 * are still read, checked and yielded in order; one asked for ahead is used only if the loop comes
 * to exactly its URL (same offset, same limit), and anything else (a short page, a `next`
 * elsewhere, a smaller page after an answer over the cap, the consumer stopping) drops the rest:
 * their requests were made (and counted for the quota) but nothing reads them.
 *
 * Memory stays bounded whatever the upstream sends: a page asked for ahead is capped at
 * LARGE_BODY_BYTES (a larger one is declined and asked for again in its turn, under the normal cap
 * and the gates), it takes no page slot (body-budget.ts), so it never waits on a slot while the page
 * before holds one, and the process holds at most AHEAD_SLOTS of them at once (taken without
 * waiting: none free, none asked).
 *
 * The API states no rate limit: a 429 to a page asked for ahead is not waited out (it may be a
 * limit on requests side by side, not the month's quota); the scan asks for nothing more ahead and
 * reads that page in its turn, where a 429 means what it always does.
 */
import { LARGE_BODY_BYTES } from './body-budget';
import { QuotaExceededError, ResponseTooLargeError } from './errors';
import type { Envelope } from './page-reader';

/** Pages asked for ahead held by the process at once, every club and source together. */
export const AHEAD_SLOTS = 8;
/** The most pages one scan asks for ahead of the one it reads. */
export const MAX_AHEAD = 6;

export interface Fetched {
  readonly envelope: Envelope;
  readonly release: () => void;
}

/** A counter of the process's slots, taken without waiting. */
export class AheadSlots {
  #free: number;

  constructor(readonly slots: number) {
    this.#free = slots;
  }

  get free(): number {
    return this.#free;
  }

  tryTake(): boolean {
    if (this.#free <= 0) return false;
    this.#free--;
    return true;
  }

  give(): void {
    this.#free = Math.min(this.slots, this.#free + 1);
  }
}

export const aheadSlots = new AheadSlots(AHEAD_SLOTS);

/** What a page asked for ahead came to: the page, or `declined` (over LARGE_BODY_BYTES). */
type Ahead = Fetched | 'declined';

interface Pending {
  readonly offset: number;
  readonly url: string;
  readonly answer: Promise<Ahead>;
}

export class PagesAhead {
  readonly #pending: Pending[] = [];
  #budget: number;

  /**
   * @param budget pages this scan may ask for ahead in all (its expected full pages)
   * @param urlAt the URL of the full page at an offset
   * @param fetch one page's request, capped at `bodyCap` bytes
   */
  constructor(
    budget: number,
    private readonly urlAt: (offset: number) => string,
    private readonly fetch: (url: string, bodyCap: number) => Promise<Fetched>,
    private readonly slots: AheadSlots = aheadSlots,
  ) {
    this.#budget = Math.max(0, Math.min(Math.floor(budget), Number.MAX_SAFE_INTEGER));
  }

  /**
   * Asks for the full pages after the one at `offset` (or after the last one already asked for),
   * up to MAX_AHEAD waiting, by their URLs.
   */
  fill(offset: number, size: number): void {
    while (this.#budget > 0 && this.#pending.length < MAX_AHEAD) {
      if (!this.slots.tryTake()) return;
      this.#budget--;
      const at = (this.#pending.at(-1)?.offset ?? offset) + size;
      const url = this.urlAt(at);
      const answer: Promise<Ahead> = this.fetch(url, LARGE_BODY_BYTES).then(
        (fetched) => ({
          envelope: fetched.envelope,
          release: once(() => {
            fetched.release();
            this.slots.give();
          }),
        }),
        (err: unknown) => {
          if (err instanceof ResponseTooLargeError) {
            this.slots.give();
            return 'declined';
          }
          if (err instanceof QuotaExceededError) {
            // A 429 to requests side by side may be a limit of their rate (the API does not say):
            // nothing more is asked for ahead, and the page is asked for in its turn, alone.
            this.#budget = 0;
            this.slots.give();
            return 'declined';
          }
          this.slots.give();
          throw err;
        },
      );
      // A page dropped unread must not surface as an unhandled rejection.
      answer.catch(() => undefined);
      this.#pending.push({ offset: at, url, answer });
    }
  }

  /**
   * The page asked for ahead at `offset` and `url`, or undefined: none yet (the pages asked for
   * are further on), or declined (ask for it again). Any other page drops every page asked for
   * ahead: the scan went elsewhere.
   */
  async take(offset: number, url: string): Promise<Fetched | undefined> {
    const first = this.#pending[0];
    if (!first || offset < first.offset) return undefined;
    if (first.offset !== offset || first.url !== url) {
      this.drop();
      return undefined;
    }
    this.#pending.shift();
    const answer = await first.answer;
    if (answer === 'declined') {
      // Its turn has come: the page and the ones after it are asked for in order from here.
      this.drop();
      this.#budget = 0;
      return undefined;
    }
    return answer;
  }

  /** Forgets every page asked for ahead: each is released once it arrives. */
  drop(): void {
    for (const { answer } of this.#pending.splice(0)) {
      answer.then(
        (a) => {
          if (a !== 'declined') a.release();
        },
        () => undefined,
      );
    }
  }
}

function once(f: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    f();
  };
}
