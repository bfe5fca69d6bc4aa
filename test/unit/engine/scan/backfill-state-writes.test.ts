/**
 * What a backfill of a state source writes, and why the regular polls after it neither repeat nor
 * miss anything: stored snapshots are left alone (a change the backfill saw is still the next
 * regular poll's to publish), and a subject it announced that had no snapshot gets the one a
 * regular poll would have written (so it is not announced twice). An API stub serves what each
 * query should see: the regular lane's tail and the backfill's full read can differ.
 */
import { describe, expect, it } from 'vitest';
import { MemorySink } from '../../../../lambdas/events/publisher';
import { membersSource } from '../../../../lambdas/sources/state-sources';
import { MemoryStateStore } from '../../../../lambdas/state';
import { pollSourceInSession } from '../../../support/state-seeds';
import { member, sydney } from '../../sources/fixtures';
import { ctx, FROM, type Member, NOW, stubClient, types } from './members-lane-fixtures';

async function setup() {
  const store = new MemoryStateStore();
  const serve = { tail: [] as Member[], all: [] as Member[] };
  const sink = new MemorySink();
  const deps = { store, sink, client: stubClient(serve), now: () => NOW, owner: 't' };
  const poll = (backfillFromMs?: number) =>
    pollSourceInSession(deps, ctx, membersSource, {
      deadlineMs: Date.now() + 10_000,
      ...(backfillFromMs === undefined ? {} : { backfillFromMs }),
    });
  return { store, serve, sink, poll };
}

describe('a state backfill and the regular polls after it', () => {
  it('leaves a stored snapshot alone: the status change it saw is still published by the next regular poll', async () => {
    const { store, serve, sink, poll } = await setup();
    // Baseline: M1 Active.
    serve.all = [member({ Number: 'M1', Status: 'Active' })];
    await poll();
    // M1 is now PaymentIssue, but the regular tail has not seen it yet (the backfill reads everything).
    serve.all = [member({ Number: 'M1', Status: 'PaymentIssue' })];
    serve.tail = [];
    sink.events.length = 0;
    await poll(FROM);
    expect(types(sink.events)).toEqual(['Member Joined M1']);
    expect((sink.events[0]!.detail as { status?: string }).status).toBe('Active');
    expect(
      (await store.parts.snapshots.getSnapshots(sydney.clubId, 'MEMBER', ['M1'])).get('M1')?.fields.status,
    ).toBe('Active');
    // The regular poll that sees the change publishes it.
    serve.tail = serve.all;
    sink.events.length = 0;
    await poll();
    expect(types(sink.events)).toEqual(['Member Status Changed M1']);
  });

  it('a subject it announced without a snapshot is not announced again by the next regular poll', async () => {
    const { serve, sink, poll } = await setup();
    serve.all = [member({ Number: 'M1' })];
    await poll();
    // M2 appears, seen by the backfill before any regular poll.
    serve.all = [member({ Number: 'M1' }), member({ Number: 'M2' })];
    serve.tail = [];
    sink.events.length = 0;
    await poll(FROM);
    expect(types(sink.events).sort()).toEqual(['Member Joined M1', 'Member Joined M2']);
    const announced = sink.events.find((e) => e.detail.subject?.memberNumber === 'M2')!.detail.eventId;
    // The regular poll meets M2 unchanged: nothing more to say.
    serve.tail = [member({ Number: 'M2' })];
    sink.events.length = 0;
    await poll();
    expect(types(sink.events)).toEqual([]);
    // A change of M2 after that is a transition from what the backfill announced.
    serve.tail = [member({ Number: 'M2', Status: 'Suspended' })];
    await poll();
    expect(types(sink.events)).toEqual(['Member Status Changed M2']);
    expect(announced).toMatch(/^[0-9a-f]{32}$/);
  });

  it('a subject without a snapshot whose membership started before the backfill start is left to the regular polls', async () => {
    const { serve, sink, poll } = await setup();
    serve.all = [member({ Number: 'M1' })];
    await poll();
    const old = member({
      Number: 'M3',
      Membership: { ...member().Membership!, StartDate: '2025-01-01T00:00:00' },
    });
    serve.all = [member({ Number: 'M1' }), old];
    sink.events.length = 0;
    await poll(FROM);
    expect(types(sink.events)).toEqual(['Member Joined M1']);
    serve.tail = [old];
    sink.events.length = 0;
    await poll();
    expect(types(sink.events)).toEqual(['Member Joined M3']);
  });
});
