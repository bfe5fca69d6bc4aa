/**
 * The port the engine publishes through. Contract: `publish()` resolves only when every event
 * has been delivered; otherwise it throws (usually `PublishError`) and the engine must not advance
 * its watermark. Delivery is at least once: after a throw, some of the events may have been
 * delivered, and publishing them again is safe because their `eventId`s do not change.
 */
import type { BridgeEvent } from './catalog';

export interface EventSink {
  publish(events: readonly BridgeEvent[]): Promise<void>;
}

export class PublishError extends Error {
  override readonly name = 'PublishError';
  /** eventIds that were not delivered (never the event contents). */
  readonly failedEventIds: readonly string[];
  /** eventIds too large for one PutEvents entry even alone (a subset of failedEventIds). */
  readonly oversizedEventIds: readonly string[];
  /** Attempts made for the events that failed last. */
  readonly attempts: number;

  constructor(
    message: string,
    options: {
      failedEventIds: readonly string[];
      oversizedEventIds?: readonly string[];
      attempts: number;
      cause?: unknown;
    },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.failedEventIds = options.failedEventIds;
    this.oversizedEventIds = options.oversizedEventIds ?? [];
    this.attempts = options.attempts;
  }
}

/** Lists ids in a message without making it unbounded. */
export function summariseIds(ids: readonly string[], max = 10): string {
  const shown = ids.slice(0, max).join(', ');
  return ids.length > max ? `${shown} and ${ids.length - max} more` : shown;
}
