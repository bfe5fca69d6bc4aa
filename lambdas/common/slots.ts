/**
 * A counting semaphore whose waiters give up after a while or when a signal aborts: the one the
 * runtime's process-wide budgets share (the client's page and large-body gates, the engine's heavy
 * polls). A slot is given back by calling its release once (later calls do nothing); a waiter that
 * gives up takes no slot.
 */

export type Release = () => void;

export interface SlotWait {
  /** How long to wait for a slot, ms. @default no limit */
  readonly waitMs?: number;
  readonly signal?: AbortSignal;
}

export class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly slots: number) {
    this.#free = slots;
  }

  get free(): number {
    return this.#free;
  }

  /** A slot's release, or why none came: 'timeout' (waitMs passed) or 'aborted' (the signal). */
  async acquire(wait: SlotWait = {}): Promise<Release | 'timeout' | 'aborted'> {
    if (this.#free > 0) {
      this.#free--;
      return this.#releaser();
    }
    const { signal, waitMs } = wait;
    if (signal?.aborted) return 'aborted';
    const got = await new Promise<true | 'timeout' | 'aborted'>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = (outcome: true | 'timeout' | 'aborted') => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = this.#waiting.indexOf(wake);
        if (at >= 0) this.#waiting.splice(at, 1);
        resolve(outcome);
      };
      const wake = () => settle(true);
      const onAbort = () => settle('aborted');
      signal?.addEventListener('abort', onAbort, { once: true });
      if (waitMs !== undefined) timer = setTimeout(() => settle('timeout'), Math.max(0, waitMs));
      this.#waiting.push(wake);
    });
    return got === true ? this.#releaser() : got;
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
