/**
 * Bounded memory for response bodies, whatever the upstream sends (docs/client.md, "Limits"):
 *
 * - every body is read as a stream and cut at a cap: a data page at `maxResponseBytes` (default
 *   DEFAULT_MAX_RESPONSE_BYTES, about 13,000 records of the sandbox's size, 500 records of 16 KB
 *   each), an error body or a token response at SMALL_BODY_BYTES (only an excerpt is ever used);
 * - a body past LARGE_BODY_BYTES needs one of the process's few large-body slots before it is read
 *   further, and keeps it until its page has been processed: however many clubs and sources poll
 *   side by side, at most LARGE_BODY_SLOTS large pages are in memory at once.
 *
 * Measured (a sandbox page of 500 members, 312 KB): a page held after parsing and validation takes
 * about 1.4x its body in heap. Parsing is synchronous, so only one page at a time is in its parse
 * peak (about 3.7x). Pages asked for ahead (pages-ahead.ts) are at most AHEAD_SLOTS (8) of at most
 * 1 MB each. A 256 MB Lambda polling 10 clubs with 8 sources each side by side therefore holds at
 * most (80 + 8) x 1 MB x 1.4 + 2 x 8 MB x 1.4, about 146 MB of pages, whatever the upstream sends;
 * one club (`poll --once`) at most (8 + 8) x 1 MB x 1.4 + 2 x 8 MB x 1.4, about 45 MB.
 */
import { DeadlineExceededError, RequestAbortedError } from './errors';

export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Error bodies and token responses: read this much at most (the rest is dropped, not an error). */
export const SMALL_BODY_BYTES = 64 * 1024;
export const LARGE_BODY_BYTES = 1024 * 1024;
export const LARGE_BODY_SLOTS = 2;

export type Release = () => void;
const noop: Release = () => undefined;

/** A counting semaphore whose waiters give up at their deadline or signal. */
export class LargeBodyGate {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly slots: number) {
    this.#free = slots;
  }

  get free(): number {
    return this.#free;
  }

  async acquire(
    operation: string,
    signal?: AbortSignal,
    deadline?: number,
    now = Date.now,
  ): Promise<Release> {
    if (this.#free > 0) {
      this.#free--;
      return this.#releaser();
    }
    await new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const wake = () => {
        cleanup();
        resolve();
      };
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = this.#waiting.indexOf(wake);
        if (at >= 0) this.#waiting.splice(at, 1);
      };
      const onAbort = () => {
        cleanup();
        reject(
          new RequestAbortedError(`${operation}: aborted by the caller`, {
            operation,
            cause: signal?.reason,
          }),
        );
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      if (deadline !== undefined) {
        timer = setTimeout(
          () => {
            cleanup();
            reject(
              new DeadlineExceededError(`${operation}: deadline reached waiting to read a large response`, {
                operation,
              }),
            );
          },
          Math.max(0, deadline - now()),
        );
      }
      this.#waiting.push(wake);
    });
    return this.#releaser();
  }

  #releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    };
  }
}

/** The process's gate: shared by every client, as memory is. */
export const largeBodyGate = new LargeBodyGate(LARGE_BODY_SLOTS);

export { noop as releaseNothing };
