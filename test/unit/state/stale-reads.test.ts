/**
 * The chaos suite's stale store (test/support/stale-reads.ts): an eventually consistent read may
 * miss what the previous poll wrote when the run's stale reads across polls are on, and a strongly
 * consistent one never does.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../../../lambdas/state';
import { FaultInjector, NO_FAULT_RATES } from '../../support/fault-injector';
import { RecentWrites, staleReadStore } from '../../support/stale-reads';

const NOW_SEC = 1_900_000_000;
const AT = '2030-03-17T17:00:00.000Z';
const snapshot = (status: string) => ({ id: 'M1', hash: status, fields: { status }, updatedAt: AT });

function twoPolls(recent: RecentWrites) {
  const base = new MemoryStateStore();
  const injector = new FaultInjector(1, NO_FAULT_RATES, []);
  const poll = (label: string) => staleReadStore(base, injector.newProcess(label), 0, recent).parts;
  return { base, injector, poll };
}

describe('stale reads across polls', () => {
  it("miss the previous poll's seen entries, snapshots and digest unless read strongly consistent", async () => {
    // Prepare: the first poll writes; a probe that reads nothing comes between
    const { injector, poll } = twoPolls(new RecentWrites({ rate: 1, random: () => 0 }));
    const first = poll('first');
    await first.snapshots.putSnapshots('club-1', 'MEMBER', [snapshot('Active')]);
    await first.seen.putSeenAt('club-1', 'visits', [{ fingerprint: 'v1', at: AT }], NOW_SEC + 86_400);
    await first.seen.putSeen('club-1', 'visits', ['u1'], NOW_SEC + 86_400);
    await first.seen.putSeenDigest('club-1', 'visits', new Uint8Array([1, 2]), NOW_SEC + 86_400);
    poll('probe');
    const next = poll('next');

    // Act
    const eventual = {
      snapshots: await next.snapshots.getSnapshots('club-1', 'MEMBER', ['M1']),
      entries: await next.seen.seenEntriesSince('club-1', 'visits', AT, NOW_SEC),
      keys: await next.seen.filterSeen('club-1', 'visits', ['u1'], NOW_SEC, { consistentRead: false }),
      digest: await next.seen.getSeenDigest('club-1', 'visits', NOW_SEC),
    };
    const strong = {
      snapshots: await next.snapshots.getSnapshots('club-1', 'MEMBER', ['M1'], { consistentRead: true }),
      entries: await next.seen.seenEntriesSince('club-1', 'visits', AT, NOW_SEC, { consistentRead: true }),
      keys: await next.seen.filterSeen('club-1', 'visits', ['u1'], NOW_SEC),
      digest: await next.seen.getSeenDigest('club-1', 'visits', NOW_SEC, { consistentRead: true }),
    };

    // Assess
    expect(eventual).toEqual({ snapshots: new Map(), entries: [], keys: new Set(), digest: undefined });
    expect(strong.snapshots.get('M1')?.hash).toBe('Active');
    expect(strong.entries.map((e) => e.fingerprint)).toEqual(['v1']);
    expect([...strong.keys]).toEqual(['u1']);
    expect(strong.digest).toEqual(new Uint8Array([1, 2]));
    expect(injector.injected['stale-read-across-polls']).toBe(4);
    expect(injector.injected['stale-read']).toBeUndefined();
  });

  it('reach back one poll only, and serve the value the poll before it left', async () => {
    // Prepare: three polls write M1 in turn
    const { poll } = twoPolls(new RecentWrites({ rate: 1, random: () => 0 }));
    await poll('one').snapshots.putSnapshots('club-1', 'MEMBER', [snapshot('Active')]);
    await poll('two').snapshots.putSnapshots('club-1', 'MEMBER', [snapshot('Suspended')]);
    const three = poll('three');

    // Act
    const read = await three.snapshots.getSnapshots('club-1', 'MEMBER', ['M1']);

    // Assess: the second poll's write missed, the first's seen
    expect(read.get('M1')?.hash).toBe('Active');
  });

  it('never miss another poll when off', async () => {
    const { poll } = twoPolls(new RecentWrites());
    await poll('one').seen.putSeen('club-1', 'visits', ['u1'], NOW_SEC + 86_400);
    const read = await poll('two').seen.filterSeen('club-1', 'visits', ['u1'], NOW_SEC, {
      consistentRead: false,
    });
    expect([...read]).toEqual(['u1']);
  });
});
