/**
 * Publish, then commit: a page's events go to the sink before its seen keys or snapshots are
 * written, so a crash in between re-publishes the same events (same eventIds): at least once.
 */
import type { BridgeEvent } from '../../events/catalog';
import { type EventSink, PublishError } from '../../events/publisher';
import { type QuarantineEntry, quarantineEntry } from './quarantine';

/** A page's events with the raw record each came from (to quarantine it if it cannot be sent). */
export interface PageEvents {
  readonly events: BridgeEvent[];
  readonly origins: Map<string, unknown>;
}

export function emptyPageEvents(): PageEvents {
  return { events: [], origins: new Map() };
}

export function addEvents(page: PageEvents, built: readonly BridgeEvent[], item: unknown): void {
  for (const event of built) {
    page.events.push(event);
    page.origins.set(event.detail.eventId, item);
  }
}

/**
 * Publishes a page's events; what was delivered is returned (and counted by the caller). A publish
 * that returns nothing delivered every event of the page.
 */
export type PublishPage = (
  page: PageEvents,
  quarantine: QuarantineEntry[],
  // biome-ignore lint/suspicious/noConfusingVoidType: a publish that returns nothing (a test's) delivered it all
) => Promise<readonly BridgeEvent[] | void>;

/**
 * Publishes a page's events. An event too large for EventBridge even alone can never be
 * delivered: its record is quarantined (once, with the reason) instead of failing every poll of
 * the source from now on. Any other failure fails the poll. Returns the events delivered.
 */
export async function publishPageEvents(
  sink: EventSink,
  page: PageEvents,
  quarantine: QuarantineEntry[],
): Promise<BridgeEvent[]> {
  const { events, origins } = page;
  if (events.length === 0) return [];
  try {
    await sink.publish(events);
    return events;
  } catch (err) {
    if (!(err instanceof PublishError) || err.oversizedEventIds.length === 0) throw err;
    const oversized = new Set(err.oversizedEventIds);
    if (err.failedEventIds.some((id) => !oversized.has(id))) throw err;
    for (const id of oversized) {
      quarantine.push(
        quarantineEntry(
          origins.get(id),
          'its event is larger than the PutEvents limit (256 KB) and cannot be published',
        ),
      );
    }
    return events.filter((e) => !oversized.has(e.detail.eventId));
  }
}

/**
 * The publishing of one scan's pages, handed to its detection: publishes each page
 * (`publishPageEvents`) and counts the events delivered, which the scan reports.
 */
export class PagePublisher {
  #published = 0;

  constructor(private readonly sink: EventSink) {}

  get published(): number {
    return this.#published;
  }

  readonly publish: PublishPage = async (page, quarantine) => {
    const delivered = await publishPageEvents(this.sink, page, quarantine);
    this.#published += delivered.length;
    return delivered;
  };
}
