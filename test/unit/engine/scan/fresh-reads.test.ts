/**
 * Fresh reads after a write (engine/scan/source-reads.ts, state/fresh-reads.ts): with polls 15 s
 * apart, an eventually consistent read may miss what the previous poll wrote. Here every such read
 * does (test/support/stale-reads.ts, across polls at rate 1): a poll that follows one that wrote
 * seen entries or snapshots must read them strongly consistent, or it announces a baseline record
 * as new or a transition from a state already left.
 */
import { describe, expect, it } from 'vitest';
import type { PollSourceOptions } from '../../../../lambdas/engine/scan/poll-types';
import { MemorySink } from '../../../../lambdas/events/publisher';
import type { GymApiClient } from '../../../../lambdas/gym-api';
import type { ItemOf } from '../../../../lambdas/gym-api/operations';
import { visitsSource } from '../../../../lambdas/sources/append-sources';
import type { SourceDefinition } from '../../../../lambdas/sources/source';
import { membersSource } from '../../../../lambdas/sources/state-sources';
import { MemoryStateStore } from '../../../../lambdas/state';
import { needsFreshReads } from '../../../../lambdas/state/fresh-reads';
import { FaultInjector, NO_FAULT_RATES } from '../../../support/fault-injector';
import { RecentWrites, staleReadStore } from '../../../support/stale-reads';
import { pollSourceInSession } from '../../../support/state-seeds';
import { member, visit } from '../../sources/fixtures';
import { ctx, NOW, types } from './members-lane-fixtures';

/** A client that answers every request of the source's operation with `rows`. */
function answering(rows: { items: unknown[] }): GymApiClient {
  return {
    async *pages() {
      yield { offset: 0, limit: 500, items: rows.items, invalid: [], rawCount: rows.items.length };
    },
  } as unknown as GymApiClient;
}

/**
 * Polls of one source, each a poller process whose eventually consistent reads miss every write
 * of the previous poll (and none of its own); `reads` counts them by consistency.
 */
function rig(source: SourceDefinition) {
  const base = new MemoryStateStore();
  const injector = new FaultInjector(1, NO_FAULT_RATES, []);
  const recent = new RecentWrites({ rate: 1, random: () => 0 });
  const rows = { items: [] as unknown[] };
  const sink = new MemorySink();
  let polls = 0;
  const poll = (options: Partial<PollSourceOptions> = {}) => {
    const process = injector.newProcess(`poll${++polls}`);
    const store = staleReadStore(base, process, 0, recent);
    return pollSourceInSession(
      { store, sink, client: answering(rows), now: () => NOW + polls * 15_000, owner: process.owner },
      ctx,
      source,
      { deadlineMs: Date.now() + 10_000, ...options },
    );
  };
  const cursor = () => base.view(ctx.clubId).getCursor(source.name);
  const served = () => injector.injected['stale-read-across-polls'] ?? 0;
  return { rows, sink, poll, cursor, served };
}

const visitAt = (n: string, minutes: number): ItemOf<'visits'> =>
  visit({ MemberNumber: n, VisitDateTime: new Date(NOW - minutes * 60_000).toISOString().slice(0, 19) });

describe('fresh reads after a write', () => {
  it('a poll after one that filed seen entries publishes nothing twice, and announces no baseline visit', async () => {
    // Prepare: a silent baseline files two visits
    const { rows, sink, poll, cursor, served } = rig(visitsSource);
    rows.items = [visitAt('M1', 20), visitAt('M2', 10)];
    await poll();
    const marked = needsFreshReads(await cursor());

    // Act: the next poll meets them again with a new one; the one after, the same rows
    rows.items = [visitAt('M1', 20), visitAt('M2', 10), visitAt('M3', 5)];
    await poll();
    const second = types(sink.events);
    await poll();

    // Assess
    expect(second).toEqual(['Member Visit Recorded M3']);
    expect(types(sink.events)).toEqual(['Member Visit Recorded M3']);
    expect(served()).toBe(0);
    // The baseline marked its cursor; the third poll read fresh (the second wrote) and wrote nothing: the mark is gone.
    expect(marked).toBe(true);
    expect(needsFreshReads(await cursor())).toBe(false);
  });

  it('a poll after one that wrote snapshots sees them: no member joins twice, no change from a state left', async () => {
    // Prepare: a silent baseline of M1, Active
    const { rows, sink, poll, served } = rig(membersSource);
    rows.items = [member({ Number: 'M1', Status: 'Active' })];
    await poll();

    // Act: Active -> Suspended, then back
    rows.items = [member({ Number: 'M1', Status: 'Suspended' })];
    await poll();
    rows.items = [member({ Number: 'M1', Status: 'Active' })];
    await poll();

    // Assess: each transition once, from the state the previous poll left
    expect(types(sink.events)).toEqual(['Member Status Changed M1', 'Member Status Changed M1']);
    const statuses = sink.events.map((e) => e.detail as { previousStatus?: string; status?: string });
    expect(statuses.map((d) => [d.previousStatus, d.status])).toEqual([
      ['Active', 'Suspended'],
      ['Suspended', 'Active'],
    ]);
    expect(served()).toBe(0);
  });

  it('a fast-lane page after a poll that filed seen entries publishes only what is new, and marks the cursor when it files', async () => {
    // Prepare: a baseline, then a poll that publishes M3
    const { rows, sink, poll, cursor, served } = rig(visitsSource);
    rows.items = [visitAt('M1', 20), visitAt('M2', 10)];
    await poll();
    rows.items = [visitAt('M1', 20), visitAt('M2', 10), visitAt('M3', 5)];
    await poll();
    const page = (items: unknown[]) => ({
      offset: 3,
      limit: 100,
      items,
      invalid: [],
      rawCount: items.length,
    });

    // Act: a lane page with M3 again and a new M4, then one with M4 alone
    const lane = await poll({ lanePage: page([visitAt('M3', 5), visitAt('M4', 1)]) as never });
    const marked = needsFreshReads(await cursor());
    await poll({ lanePage: page([visitAt('M4', 1)]) as never });

    // Assess
    expect(lane).toMatchObject({ mode: 'lane', records: 2, events: 1 });
    expect(types(sink.events)).toEqual(['Member Visit Recorded M3', 'Member Visit Recorded M4']);
    expect(served()).toBe(0);
    expect(marked).toBe(true);
  });
});
