/**
 * One SQS standard queue as the webhook bench needs it, in memory: delays (DelaySeconds),
 * visibility timeouts and their changes, receive counts, long polling, and the fair-queue order
 * ("How Amazon SQS fair queues work", SQS Developer Guide): messages carry a MessageGroupId (the
 * tenant); a tenant with more than 10% of the queue's in-flight messages and at least 30 of its own
 * in flight is a noisy neighbour, and a receive returns the quiet tenants' messages first. (The
 * guide's second measure, a tenant's share of the consumers' processing time, is not modelled:
 * the bench's slow tenants are the dead endpoints, whose attempts the circuit keeps few.)
 *
 * Messages not yet visible wait in a heap by the time they become visible; a single timer moves
 * them to the ready list and wakes the long polls.
 */
import { createHash, randomUUID } from 'node:crypto';

export interface QueuedMessage {
  readonly messageId: string;
  readonly body: string;
  readonly md5: string;
  readonly group?: string;
  readonly sentAtMs: number;
  visibleAtMs: number;
  receiveCount: number;
  receiptHandle?: string;
  /** Received and not yet visible again (SQS's in flight). */
  inFlight: boolean;
  deleted: boolean;
  /** Bumped at every visibility change: older heap entries are stale. */
  stamp: number;
}

const NOISY_SHARE = 0.1;
const NOISY_MIN_IN_FLIGHT = 30;

/** A min-heap of [visibleAtMs, message, stamp]. */
class VisibilityHeap {
  readonly #items: [number, QueuedMessage, number][] = [];

  get size(): number {
    return this.#items.length;
  }

  peek(): number | undefined {
    return this.#items[0]?.[0];
  }

  push(m: QueuedMessage): void {
    const items = this.#items;
    items.push([m.visibleAtMs, m, m.stamp]);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent]![0] <= items[i]![0]) break;
      [items[parent], items[i]] = [items[i]!, items[parent]!];
      i = parent;
    }
  }

  pop(): [number, QueuedMessage, number] | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && items[l]![0] < items[m]![0]) m = l;
        if (r < items.length && items[r]![0] < items[m]![0]) m = r;
        if (m === i) break;
        [items[m], items[i]] = [items[i]!, items[m]!];
        i = m;
      }
    }
    return top;
  }
}

export class FairQueue {
  readonly #byHandle = new Map<string, QueuedMessage>();
  readonly #heap = new VisibilityHeap();
  #ready: QueuedMessage[] = [];
  readonly #inFlightByGroup = new Map<string, number>();
  #inFlight = 0;
  #stored = 0;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #waiters: (() => void)[] = [];

  constructor(
    readonly name: string,
    readonly url: string,
    readonly visibilityTimeoutSec: number,
  ) {}

  get stored(): number {
    return this.#stored;
  }

  send(body: string, delaySeconds: number, group: string | undefined): QueuedMessage {
    const now = Date.now();
    const m: QueuedMessage = {
      messageId: randomUUID(),
      body,
      md5: createHash('md5').update(body, 'utf8').digest('hex'),
      ...(group ? { group } : {}),
      sentAtMs: now,
      visibleAtMs: now + Math.max(0, delaySeconds) * 1000,
      receiveCount: 0,
      inFlight: false,
      deleted: false,
      stamp: 0,
    };
    this.#stored++;
    if (m.visibleAtMs <= now) this.#makeReady(m);
    else this.#schedule(m);
    return m;
  }

  /** Up to `max` visible messages, quiet tenants first, hidden for `visibilitySec`. */
  receive(max: number, visibilitySec = this.visibilityTimeoutSec): QueuedMessage[] {
    this.#promote();
    if (this.#ready.length === 0) return [];
    const noisy = (m: QueuedMessage) => {
      const own = m.group ? (this.#inFlightByGroup.get(m.group) ?? 0) : 0;
      return own >= NOISY_MIN_IN_FLIGHT && own > NOISY_SHARE * this.#inFlight;
    };
    const quiet = this.#ready.filter((m) => !noisy(m));
    const picked = [...quiet, ...this.#ready.filter(noisy)].slice(0, max);
    const taken = new Set(picked);
    this.#ready = this.#ready.filter((m) => !taken.has(m));
    const now = Date.now();
    for (const m of picked) {
      m.receiveCount++;
      m.receiptHandle = `${m.messageId}#${m.receiveCount}`;
      this.#byHandle.set(m.receiptHandle, m);
      this.#setInFlight(m, true);
      m.visibleAtMs = now + visibilitySec * 1000;
      this.#schedule(m);
    }
    return picked;
  }

  /** Resolves when a message may be visible, or after `ms`. */
  waitForMessages(ms: number): Promise<void> {
    this.#promote();
    if (this.#ready.length > 0 || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#waiters.push(done);
    });
  }

  delete(receiptHandle: string): boolean {
    const m = this.#byHandle.get(receiptHandle);
    if (!m || m.deleted || m.receiptHandle !== receiptHandle) return false;
    m.deleted = true;
    this.#stored--;
    this.#byHandle.delete(receiptHandle);
    this.#setInFlight(m, false);
    return true;
  }

  changeVisibility(receiptHandle: string, seconds: number): boolean {
    const m = this.#byHandle.get(receiptHandle);
    if (!m || m.deleted || !m.inFlight) return false;
    m.visibleAtMs = Date.now() + seconds * 1000;
    if (seconds <= 0) {
      this.#setInFlight(m, false);
      m.stamp++;
      this.#makeReady(m);
    } else this.#schedule(m);
    return true;
  }

  counts(): { visible: number; notVisible: number; inFlight: number } {
    this.#promote();
    return {
      visible: this.#ready.length,
      notVisible: this.#stored - this.#ready.length,
      inFlight: this.#inFlight,
    };
  }

  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#wake();
  }

  #setInFlight(m: QueuedMessage, inFlight: boolean): void {
    if (m.inFlight === inFlight) return;
    m.inFlight = inFlight;
    const d = inFlight ? 1 : -1;
    this.#inFlight += d;
    if (m.group) this.#inFlightByGroup.set(m.group, (this.#inFlightByGroup.get(m.group) ?? 0) + d);
  }

  #makeReady(m: QueuedMessage): void {
    this.#ready.push(m);
    this.#wake();
  }

  #schedule(m: QueuedMessage): void {
    m.stamp++;
    this.#heap.push(m);
    this.#arm();
  }

  /** Moves the messages whose time has come to the ready list (visible again: no longer in flight). */
  #promote(): void {
    const now = Date.now();
    let woke = false;
    while ((this.#heap.peek() ?? Number.POSITIVE_INFINITY) <= now) {
      const [, m, stamp] = this.#heap.pop()!;
      if (m.deleted || stamp !== m.stamp) continue;
      if (m.receiptHandle) this.#byHandle.delete(m.receiptHandle);
      m.receiptHandle = undefined;
      this.#setInFlight(m, false);
      this.#ready.push(m);
      woke = true;
    }
    if (woke) this.#wake();
  }

  #arm(): void {
    const next = this.#heap.peek();
    if (next === undefined || next >= this.#timerAt) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerAt = next;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.#promote();
        this.#arm();
      },
      Math.max(0, next - Date.now()),
    );
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}
