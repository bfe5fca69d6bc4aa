/**
 * A member who joins and is cancelled between two polls is first seen with a CancellationDate
 * (chaos seed 569: joined 02:32, cancelled with notice 02:53, first polled 03:37). Its snapshot
 * holds that date, so no later diff announces the cancellation: the first sighting must, next to
 * Member Joined, in the regular lane, after a crash between publish and commit (the intent), and
 * in a backfill that announces the member before any regular poll did.
 */
import { describe, expect, it } from 'vitest';
import { type EventSink, MemorySink } from '../../../../lambdas/events/publisher';
import { membersSource } from '../../../../lambdas/sources/state-sources';
import { MemoryStateStore } from '../../../../lambdas/state';
import { pollSourceInSession } from '../../../support/state-seeds';
import { member } from '../../sources/fixtures';
import { ctx, FROM, type Member, NOW, stubClient, types } from './members-lane-fixtures';

const cancelledMember = (n: string): Member =>
  member({ Number: n, Membership: { ...member().Membership!, CancellationDate: '2025-07-01T00:00:00' } });

async function setup() {
  const store = new MemoryStateStore();
  const serve = { tail: [] as Member[], all: [] as Member[] };
  const sink = new MemorySink();
  const poll = (options: { backfillFromMs?: number; sink?: EventSink } = {}) =>
    pollSourceInSession(
      { store, sink: options.sink ?? sink, client: stubClient(serve), now: () => NOW, owner: 't' },
      ctx,
      membersSource,
      {
        deadlineMs: Date.now() + 10_000,
        ...(options.backfillFromMs === undefined ? {} : { backfillFromMs: options.backfillFromMs }),
      },
    );
  // Baseline: M1 only.
  serve.all = [member({ Number: 'M1' })];
  await poll();
  return { serve, sink, poll };
}

describe('a member first seen already cancelled', () => {
  it('is announced as joined and cancelled by the poll that first sees it, and only once', async () => {
    const { serve, sink, poll } = await setup();
    serve.tail = [cancelledMember('M2')];
    serve.all = [member({ Number: 'M1' }), cancelledMember('M2')];
    await poll();
    expect(types(sink.events)).toEqual(['Member Joined M2', 'Membership Cancelled M2']);
    expect(sink.events[1]!.detail).toMatchObject({ cancellationDate: '2025-07-01T00:00:00' });
    sink.events.length = 0;
    await poll();
    expect(types(sink.events)).toEqual([]);
  });

  it('a poll that crashed after publishing: the next one publishes both again with the same ids', async () => {
    const { serve, sink, poll } = await setup();
    serve.tail = [cancelledMember('M2')];
    const crashing = new MemorySink();
    const publish = crashing.publish.bind(crashing);
    crashing.publish = async (events) => {
      await publish(events);
      throw new Error('crash after publish');
    };
    await expect(poll({ sink: crashing })).rejects.toThrow('crash after publish');
    await poll();
    expect(types(sink.events)).toEqual(types(crashing.events));
    expect(sink.events.map((e) => e.detail.eventId)).toEqual(crashing.events.map((e) => e.detail.eventId));
    expect(types(sink.events)).toContain('Membership Cancelled M2');
  });

  it('a backfill that announces it before any regular poll announces the cancellation too', async () => {
    const { serve, sink, poll } = await setup();
    serve.all = [member({ Number: 'M1' }), cancelledMember('M2')];
    serve.tail = [];
    await poll({ backfillFromMs: FROM });
    expect(types(sink.events).sort()).toEqual([
      'Member Joined M1',
      'Member Joined M2',
      'Membership Cancelled M2',
    ]);
    // The regular poll that meets M2 has nothing more to say.
    serve.tail = [cancelledMember('M2')];
    sink.events.length = 0;
    await poll();
    expect(types(sink.events)).toEqual([]);
  });
});
