/**
 * An EventSink in front of a real one (the EventBridgeSink of a chaos run) that crashes the poller
 * before, after or half-way through a publish, and tells the poller process which events were
 * actually delivered, so the journal check knows which re-deliveries a crash explains.
 */
import type { BridgeEvent } from '../../lambdas/events/catalog';
import { type EventSink, PublishError } from '../../lambdas/events/event-sink';
import type { PollerProcess } from './fault-injector';

export class FaultySink implements EventSink {
  constructor(
    private readonly inner: EventSink,
    private readonly process: PollerProcess,
  ) {}

  async publish(events: readonly BridgeEvent[]): Promise<void> {
    const { process } = this;
    process.assertAlive('publish');
    const crash = process.injector.crashFor('publish');
    if (crash?.phase === 'before') throw process.crash(crash);
    const batch = crash?.phase === 'partial' ? events.slice(0, Math.ceil(events.length / 2)) : events;
    try {
      await this.inner.publish(batch);
    } catch (err) {
      // Delivered: everything but what the sink says failed (all of it, when it cannot say).
      const failed = new Set(err instanceof PublishError ? err.failedEventIds : []);
      process.abandoned(sourced(batch).filter((e) => !failed.has(e.eventId)));
      throw err;
    }
    if (crash) {
      process.abandoned(sourced(batch));
      throw process.crash(crash);
    }
    process.delivered(sourced(batch));
  }
}

/** The bridge source (`detail.source`, e.g. `visits`) and the eventId of each event. */
const sourced = (events: readonly BridgeEvent[]) =>
  events.map((e) => ({ source: e.detail.source, eventId: e.detail.eventId }));
