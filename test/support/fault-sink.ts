/**
 * Sinks that fail on purpose, in front of a real one:
 *
 * - `FaultySink` (chaos runs, in front of their EventBridgeSink) crashes the poller before, after or
 *   half-way through a publish, tells the poller process which events were actually delivered (so
 *   the journal check knows which re-deliveries a crash explains), and, when the run's injector
 *   says so, fails the first publish of each operational event;
 * - `FailFirstOperationalSink` fails the first publish of each operational event and nothing else
 *   (the engine's integration tests of operational events).
 *
 * "Each operational event" is each eventId: a re-publish that carries the same id goes through, one
 * under a new id fails again, so an engine whose ids are not stable never delivers it.
 */
import type { BridgeEvent } from '../../lambdas/events/catalog';
import { type EventSink, PublishError } from '../../lambdas/events/event-sink';
import type { PollerProcess } from './fault-injector';

/** Operational events: `detail.source` is 'bridge' (docs/events.md). */
export const isOperational = (event: BridgeEvent): boolean => event.detail.source === 'bridge';

/**
 * The first publish of each operational event fails: the whole call throws PublishError before
 * anything is delivered (as a PutEvents call that fails outright). Keeps every attempt.
 */
export class OperationalPublishFaults {
  /** Every operational event handed to a publish, failed or not, in order. */
  readonly attempts: BridgeEvent[] = [];
  /** eventIds whose first publish was failed. */
  readonly failed = new Set<string>();

  /** Throws PublishError when `events` hold an operational event whose publish never failed yet. */
  failFirst(events: readonly BridgeEvent[]): void {
    const ops = events.filter(isOperational);
    this.attempts.push(...ops.map((e) => structuredClone(e)));
    const fresh = ops.filter((e) => !this.failed.has(e.detail.eventId));
    if (fresh.length === 0) return;
    for (const e of fresh) this.failed.add(e.detail.eventId);
    throw new PublishError(
      `injected: the first publish of ${fresh.map((e) => e.detailType).join(', ')} failed`,
      { failedEventIds: events.map((e) => e.detail.eventId), attempts: 1 },
    );
  }
}

/** Fails the first publish of each operational event (by eventId); passes everything else on. */
export class FailFirstOperationalSink implements EventSink {
  readonly faults = new OperationalPublishFaults();

  constructor(private readonly inner: EventSink) {}

  async publish(events: readonly BridgeEvent[]): Promise<void> {
    this.faults.failFirst(events);
    await this.inner.publish(events);
  }
}

export class FaultySink implements EventSink {
  constructor(
    private readonly inner: EventSink,
    private readonly process: PollerProcess,
  ) {}

  async publish(events: readonly BridgeEvent[]): Promise<void> {
    let published = false;
    try {
      await this.#publish(events);
      published = true;
    } finally {
      // What the operational check needs: every operational event this process tried to publish.
      for (const event of events.filter(isOperational)) this.process.operational.push({ event, published });
    }
  }

  async #publish(events: readonly BridgeEvent[]): Promise<void> {
    const { process } = this;
    process.assertAlive('publish');
    const { injector } = process;
    if (injector.active && injector.operationalPublishFaults) {
      try {
        injector.operationalPublishFaults.failFirst(events);
      } catch (err) {
        injector.count('operational-publish-failed');
        throw err;
      }
    }
    const crash = injector.crashFor('publish');
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
