/**
 * An in-memory sink for tests and benchmarks: keeps every published event in order, and can be
 * told to fail the next publish calls (to test that a failed publish advances nothing).
 */
import type { BridgeEvent, BridgeEventOf, DetailType } from './catalog';
import { type EventSink, PublishError } from './event-sink';

export class MemorySink implements EventSink {
  /** Every event delivered so far, in publish order. */
  readonly events: BridgeEvent[] = [];
  /** Number of publish() calls, failed ones included. */
  calls = 0;
  private failuresLeft = 0;

  async publish(events: readonly BridgeEvent[]): Promise<void> {
    this.calls++;
    if (this.failuresLeft > 0) {
      this.failuresLeft--;
      throw new PublishError(`MemorySink: injected failure, ${events.length} events not delivered`, {
        failedEventIds: events.map((e) => e.detail.eventId),
        attempts: 1,
      });
    }
    this.events.push(...events.map((e) => structuredClone(e)));
  }

  /** Makes the next `count` publish() calls throw PublishError without delivering anything. */
  failNext(count = 1): void {
    this.failuresLeft += count;
  }

  ofType<T extends DetailType>(detailType: T): BridgeEventOf<T>[] {
    return this.events.filter((e): e is BridgeEventOf<T> => e.detailType === detailType);
  }

  eventIds(): string[] {
    return this.events.map((e) => e.detail.eventId);
  }

  clear(): void {
    this.events.length = 0;
  }
}
