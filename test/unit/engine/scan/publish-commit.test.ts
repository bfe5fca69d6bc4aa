import { describe, expect, it } from 'vitest';
import {
  addEvents,
  emptyPageEvents,
  publishPageEvents,
} from '../../../../lambdas/engine/scan/publish-commit';
import { type QuarantineEntry, quarantineKey } from '../../../../lambdas/engine/scan/quarantine';
import type { BridgeEvent } from '../../../../lambdas/events/catalog';
import { type EventSink, PublishError } from '../../../../lambdas/events/event-sink';
import { MemorySink } from '../../../../lambdas/events/publisher';

const event = (eventId: string) => ({ detail: { eventId } }) as unknown as BridgeEvent;

function pageOf(...ids: string[]) {
  const page = emptyPageEvents();
  for (const id of ids) addEvents(page, [event(id)], { record: id });
  return page;
}

const failing = (error: Error): EventSink => ({
  publish: async () => {
    throw error;
  },
});

describe('publishPageEvents', () => {
  it('delivers every event of the page', async () => {
    // Prepare
    const sink = new MemorySink();
    // Act
    const delivered = await publishPageEvents(sink, pageOf('e1', 'e2'), []);
    // Assess
    expect(delivered.map((e) => e.detail.eventId)).toEqual(['e1', 'e2']);
    expect(sink.events).toHaveLength(2);
  });

  it('quarantines the record of an event too large to publish, and delivers the rest', async () => {
    // Prepare
    const quarantine: QuarantineEntry[] = [];
    const error = new PublishError('too large', {
      failedEventIds: ['e2'],
      oversizedEventIds: ['e2'],
      attempts: 1,
    });
    // Act
    const delivered = await publishPageEvents(failing(error), pageOf('e1', 'e2'), quarantine);
    // Assess
    expect(delivered.map((e) => e.detail.eventId)).toEqual(['e1']);
    expect(quarantine).toEqual([
      expect.objectContaining({ key: quarantineKey({ record: 'e2' }), raw: { record: 'e2' } }),
    ]);
  });

  it.each([
    {
      name: 'a failure other than size',
      error: new PublishError('down', { failedEventIds: ['e1'], attempts: 3 }),
    },
    {
      name: 'an oversized event next to other failures',
      error: new PublishError('mixed', {
        failedEventIds: ['e1', 'e2'],
        oversizedEventIds: ['e2'],
        attempts: 3,
      }),
    },
    { name: 'any other error', error: new Error('boom') },
  ])('fails the poll on $name', async ({ error }) => {
    // Act / Assess
    await expect(publishPageEvents(failing(error), pageOf('e1', 'e2'), [])).rejects.toBe(error);
  });

  it('publishes nothing for an empty page', async () => {
    // Prepare
    const sink = new MemorySink();
    // Act / Assess
    expect(await publishPageEvents(sink, emptyPageEvents(), [])).toEqual([]);
    expect(sink.events).toHaveLength(0);
  });
});
