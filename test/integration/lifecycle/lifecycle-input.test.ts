/**
 * What the lifecycle evaluation reads (docs/lifecycle.md), after real polls: the seen entries a
 * poll files carry a visit's member number, a payment's member, Id and type; gatherLifecycleInput
 * reads them back with the snapshots' facts. Sandbox and dynalite over real sockets.
 */
import { describe, expect, it } from 'vitest';
import { pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import { MemorySink } from '../../../lambdas/events/publisher';
import { gatherLifecycleInput } from '../../../lambdas/lifecycle/lifecycle-input';
import { withClubSession } from '../../../lambdas/state/state-store';
import { useEngineRig } from '../../support/engine-rig';

describe('seen entries with a memo', () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 8,
      clubs: 1,
      members: 120,
      historyDays: 2,
      startTime: '2026-05-04T08:00:00Z',
      activityScale: 8,
    },
  });

  /** A baseline poll, two hours of the club, a second poll: its events and a window back to before the baseline. */
  async function baselineThenTwoHours(table: string) {
    const store = await rig.newStore(table);
    const club = rig.firstClub();
    const poll = (sink: MemorySink) =>
      pollClub({ store, sink, clients: rig.clients, owner: 't', now: rig.now }, club, {
        deadlineMs: rig.deadline(),
      });
    await poll(new MemorySink());
    rig.sandbox.advance(2 * 3_600_000);
    const sink = new MemorySink();
    await poll(sink);
    return { store, club, sink, from: new Date(rig.now() - 2 * 86_400_000).toISOString() };
  }

  it('every visit and payment a poll files carries its member (and the payment its Id)', async () => {
    // Prepare and act: a baseline, then two hours of the club.
    const { store, club, sink, from } = await baselineThenTwoHours('memo');
    const nowSec = Math.floor(rig.now() / 1000);
    const visits = await store.parts.seen.seenEntriesSince(club.clubId, 'visits', from, nowSec);
    const payments = await store.parts.seen.seenEntriesSince(club.clubId, 'paymentHistory', from, nowSec);
    // Assess
    const published = (type: string) => sink.events.filter((e) => e.detailType === type);
    const visitMembers = new Set(
      published('Member Visit Recorded').map((e) => e.detail.subject.memberNumber),
    );
    expect(visitMembers.size).toBeGreaterThan(3);
    // The baseline's entries carry theirs too: every entry has one, the published visits' among them.
    expect(visits.every((e) => typeof e.memo === 'string' && e.memo !== '')).toBe(true);
    const visitMemos = new Set(visits.map((e) => e.memo));
    for (const member of visitMembers) expect(visitMemos).toContain(member);
    const paid = published('Payment Succeeded').concat(published('Payment Failed'));
    expect(paid.length).toBeGreaterThan(0);
    const memos = new Set(payments.map((e) => e.memo));
    for (const e of paid) {
      const { paymentId, paymentType } = e.detail as { paymentId: string; paymentType?: string };
      expect(memos).toContain(
        JSON.stringify([e.detail.subject.memberNumber ?? null, paymentId, paymentType ?? null]),
      );
    }
  });

  it('gathers the members, prospects, visits and payment outcomes the polls left, in local time', async () => {
    // Prepare
    const { store, club, sink, from } = await baselineThenTwoHours('gather');
    // Act
    const input = await withClubSession(store, club.clubId, 'test', (session) =>
      gatherLifecycleInput(
        session,
        club,
        rig.now(),
        { full: true },
        {
          visitsFrom: from,
          paymentsFrom: from,
        },
      ),
    );
    // Assess
    expect(input.members.size).toBeGreaterThan(50);
    const anyMember = [...input.members.values()][0]!;
    expect(anyMember.status).toEqual(expect.any(String));
    expect(anyMember.startDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    expect(input.prospects.size).toBeGreaterThan(0);
    expect(sink.events.filter((x) => x.detailType === 'Member Visit Recorded').length).toBeGreaterThan(3);
    expect(sink.events.filter((x) => x.detailType === 'Payment Succeeded').length).toBeGreaterThan(0);
    for (const e of sink.events.filter((x) => x.detailType === 'Member Visit Recorded')) {
      const local = (e.detail as { data: { VisitDateTime: string } }).data.VisitDateTime.slice(0, 19);
      expect(input.visits.get(e.detail.subject.memberNumber!)).toContain(local);
    }
    for (const e of sink.events.filter((x) => x.detailType === 'Payment Succeeded')) {
      const { paymentId } = e.detail as { paymentId: string };
      expect(input.payments.get(e.detail.subject.memberNumber!)).toContainEqual(
        expect.objectContaining({ paymentId, outcome: 'succeeded' }),
      );
    }
  });
});
