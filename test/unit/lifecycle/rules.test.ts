/**
 * The lifecycle rules at their boundaries (docs/lifecycle.md): the threshold's exact moment, DST
 * (same wall-clock time N days later), zones east and west of UTC, a status change between two
 * evaluations, late data, out-of-order payment outcomes.
 */
import { describe, expect, it } from 'vitest';
import { announcement } from '../../../lambdas/lifecycle/evaluate';
import { foldPayments, foldVisits } from '../../../lambdas/lifecycle/folds';
import {
  evaluateMember,
  evaluateProspect,
  type MemberFacts,
  LIFECYCLE_DEFAULTS as S,
} from '../../../lambdas/lifecycle/rules';

const at = (iso: string) => Date.parse(iso);
const SYD = 'Australia/Sydney';
const LA = 'America/Los_Angeles';
const AKL = 'Pacific/Auckland';
const TRACKED = '2026-01-01T00:00:00';
const active = (more: Partial<MemberFacts> = {}): MemberFacts => ({
  status: 'Active',
  startDate: '2025-06-01T00:00:00',
  ...more,
});

describe('Member Inactive', () => {
  it('is due at the same wall-clock time inactiveDays after the last visit, not a second before', () => {
    // Prepare: Sydney is UTC+11 in March (daylight time until April 5).
    const life = { lastVisitAt: '2026-03-01T18:00:00' };
    const moment = at('2026-03-15T07:00:00Z'); // 2026-03-15T18:00 local
    // Act
    const before = evaluateMember(active(), life, TRACKED, moment - 1000, SYD, S);
    const onTime = evaluateMember(active(), life, TRACKED, moment, SYD, S);
    // Assess
    expect(before).toEqual({ due: [], nextAtMs: moment });
    expect(onTime.due).toEqual([
      {
        rule: 'inactive',
        from: '2026-03-01T18:00:00',
        lastVisitAt: '2026-03-01T18:00:00',
        inactiveDays: 14,
        thresholdDays: 14,
        momentMs: moment,
      },
    ]);
  });

  it('counts calendar days across a DST change (13 days 23 hours of real time in spring)', () => {
    // Prepare: Los Angeles springs forward on 2026-03-08 (PST UTC-8 -> PDT UTC-7).
    const life = { lastVisitAt: '2026-03-01T10:00:00' };
    // Act
    const { nextAtMs } = evaluateMember(active(), life, TRACKED, at('2026-03-02T00:00:00Z'), LA, S);
    // Assess
    expect(nextAtMs).toBe(at('2026-03-15T17:00:00Z'));
    expect(nextAtMs! - at('2026-03-01T18:00:00Z')).toBe(14 * 86_400_000 - 3_600_000);
  });

  it('fires at the local moment in zones east and west of UTC', () => {
    // Prepare: the same wall-clock last visit in Auckland (UTC+13) and Los Angeles (UTC-7).
    const life = { lastVisitAt: '2026-03-20T09:00:00' };
    // Act
    const east = evaluateMember(active(), life, TRACKED, 0, AKL, S).nextAtMs;
    const west = evaluateMember(active(), life, TRACKED, 0, LA, S).nextAtMs;
    // Assess: Auckland keeps daylight time (UTC+13) until April 5.
    expect(east).toBe(at('2026-04-02T20:00:00Z'));
    expect(west).toBe(at('2026-04-03T16:00:00Z'));
  });

  it('is not due while the member is not Active, and is the same fact when they are Active again', () => {
    // Prepare
    const life = { lastVisitAt: '2026-03-01T18:00:00' };
    const late = at('2026-03-20T00:00:00Z');
    // Act
    const issue = evaluateMember(active({ status: 'PaymentIssue' }), life, TRACKED, late, SYD, S);
    const again = evaluateMember(active(), life, TRACKED, late, SYD, S);
    const announced = evaluateMember(
      active(),
      { ...life, lapse: { from: '2026-03-01T18:00:00', lastVisitAt: life.lastVisitAt, announced: true } },
      TRACKED,
      late,
      SYD,
      S,
    );
    // Assess
    expect(issue.due).toEqual([]);
    expect(again.due).toMatchObject([{ rule: 'inactive', from: '2026-03-01T18:00:00', inactiveDays: 18 }]);
    expect(announced.due).toEqual([]);
  });

  it('counts from the membership start, or the start of tracking, when no visit was seen', () => {
    // Act
    const joinedLater = evaluateMember(active({ startDate: '2026-02-10T00:00:00' }), {}, TRACKED, 0, SYD, S);
    const joinedBefore = evaluateMember(active(), {}, TRACKED, at('2026-01-15T13:00:00Z'), SYD, S);
    // Assess
    expect(joinedLater.nextAtMs).toBe(at('2026-02-23T13:00:00Z')); // Feb 24 00:00 local, UTC+11
    expect(joinedBefore.due).toMatchObject([{ rule: 'inactive', from: TRACKED, lastVisitAt: null }]);
  });
});

describe('Membership Expiring', () => {
  const expiring = active({ expiryDate: '2026-06-01T00:00:00', minimumTermDate: '2026-06-10T00:00:00' });

  it('opens expiringDays before the date (local midnight), counts calendar days, closes on the date', () => {
    // Prepare: Sydney is UTC+10 in May and June.
    const opens = at('2026-05-17T14:00:00Z'); // 2026-05-18T00:00 local
    // Act
    const before = evaluateMember(
      expiring,
      { lastVisitAt: '2026-05-17T09:00:00' },
      TRACKED,
      opens - 1,
      SYD,
      S,
    );
    const open = evaluateMember(expiring, { lastVisitAt: '2026-05-17T09:00:00' }, TRACKED, opens, SYD, S);
    const lastHour = evaluateMember(
      expiring,
      { lastVisitAt: '2026-05-31T09:00:00' },
      TRACKED,
      at('2026-05-31T13:30:00Z'),
      SYD,
      S,
    );
    const passed = evaluateMember(
      expiring,
      { lastVisitAt: '2026-05-31T09:00:00' },
      TRACKED,
      at('2026-05-31T14:00:00Z'),
      SYD,
      S,
    );
    // Assess
    expect(before.due).toEqual([]);
    expect(before.nextAtMs).toBe(opens);
    expect(open.due).toEqual([
      { rule: 'expiring', kind: 'expiry', date: '2026-06-01T00:00:00', daysLeft: 14, momentMs: opens },
    ]);
    expect(lastHour.due).toMatchObject([
      { kind: 'expiry', daysLeft: 1 },
      { kind: 'minimumTerm', daysLeft: 10 },
    ]);
    expect(passed.due).toMatchObject([{ kind: 'minimumTerm', daysLeft: 9 }]);
  });

  it('is not due for a cancelled membership, a member not Active, or a date already announced', () => {
    // Prepare
    const now = at('2026-05-28T00:00:00Z'); // May 28, both windows open
    const life = { lastVisitAt: '2026-05-24T09:00:00' };
    // Act
    const cancelled = evaluateMember(
      { ...expiring, cancellationDate: '2026-05-20T00:00:00' },
      life,
      TRACKED,
      now,
      SYD,
      S,
    );
    const frozen = evaluateMember({ ...expiring, status: 'Frozen' }, life, TRACKED, now, SYD, S);
    const told = evaluateMember(
      expiring,
      { ...life, expiring: ['expiry|2026-06-01T00:00:00'] },
      TRACKED,
      now,
      SYD,
      S,
    );
    const moved = evaluateMember(
      { ...expiring, expiryDate: '2026-06-02T00:00:00' },
      { ...life, expiring: ['expiry|2026-06-01T00:00:00'] },
      TRACKED,
      now,
      SYD,
      S,
    );
    // Assess
    expect(cancelled.due).toEqual([]);
    expect(frozen.due).toEqual([]);
    expect(told.due.map((d) => d.rule === 'expiring' && d.kind)).toEqual(['minimumTerm']);
    expect(moved.due.map((d) => d.rule === 'expiring' && d.date)).toEqual([
      '2026-06-02T00:00:00',
      '2026-06-10T00:00:00',
    ]);
  });
});

describe('Prospect Trial Ending', () => {
  it('is due trialEndingHours before the trial end, in hours of real time, while OnTrial only', () => {
    // Prepare: Los Angeles falls back on 2026-11-01 02:00 (PDT -> PST); the trial ends that day at 10:00 PST.
    const end = at('2026-11-01T18:00:00Z');
    const facts = { status: 'OnTrial', trialEndDate: '2026-11-01T10:00:00' };
    // Act
    const before = evaluateProspect(facts, [], end - 24 * 3_600_000 - 1, LA, S);
    const open = evaluateProspect(facts, [], end - 24 * 3_600_000, LA, S);
    const later = evaluateProspect(facts, [], end - 90 * 60_000, LA, S);
    const sale = evaluateProspect({ ...facts, status: 'Sale' }, [], end - 3_600_000, LA, S);
    const told = evaluateProspect(facts, ['2026-11-01T10:00:00'], end - 3_600_000, LA, S);
    const over = evaluateProspect(facts, [], end, LA, S);
    // Assess
    expect(before).toEqual({ due: [], nextAtMs: end - 24 * 3_600_000 });
    expect(open.due).toEqual([
      {
        rule: 'trialEnding',
        trialEndDate: '2026-11-01T10:00:00',
        hoursLeft: 24,
        momentMs: end - 24 * 3_600_000,
      },
    ]);
    expect(later.due).toMatchObject([{ hoursLeft: 1 }]);
    expect([sale.due, told.due, over.due]).toEqual([[], [], []]);
  });

  it('one rule: the first evaluation is silent; later, occurredAt is the latest of moment, change, tracking', () => {
    // Prepare
    const first = { since: TRACKED, sinceMs: 1000, seenFrom: TRACKED, first: true };
    const later = { ...first, first: false };
    // Act and Assess
    expect(announcement(first, 5000, 6000)).toBeUndefined();
    expect(announcement(later, 5000)).toBe(5000);
    expect(announcement(later, 5000, 6000)).toBe(6000);
    expect(announcement(later, 5000, 4000)).toBe(5000);
    expect(announcement(later, 500, 800)).toBe(1000);
  });
});

describe('visits: Member First Visit and Member Returned', () => {
  it('announces the first visit at or after a membership start later than tracking, once', () => {
    // Prepare
    const joined = active({ startDate: '2026-02-10T00:00:00' });
    // Act
    const first = foldVisits(
      joined,
      {},
      ['2026-02-12T07:00:00', '2026-02-09T07:00:00', '2026-02-11T18:30:00'],
      TRACKED,
    );
    const again = foldVisits(joined, first.life, ['2026-02-13T07:00:00'], TRACKED);
    const old = foldVisits(active(), {}, ['2026-02-12T07:00:00'], TRACKED);
    // Assess
    expect(first.facts).toEqual({
      firstVisit: { membershipStartDate: '2026-02-10T00:00:00', visitedAt: '2026-02-11T18:30:00' },
    });
    expect(first.life.lastVisitAt).toBe('2026-02-12T07:00:00');
    expect(again.facts).toEqual({});
    expect(old.facts).toEqual({});
  });

  it('announces a return after an announced lapse, a late visit as a correction, none after a silent one', () => {
    // Prepare
    const lapse = { from: '2026-03-01T18:00:00', lastVisitAt: '2026-03-01T18:00:00', announced: true };
    const life = { lastVisitAt: '2026-03-01T18:00:00', lapse };
    // Act
    const back = foldVisits(active(), life, ['2026-03-20T08:00:00'], TRACKED);
    const late = foldVisits(active(), life, ['2026-03-05T08:00:00'], TRACKED);
    const silent = foldVisits(
      active(),
      { ...life, lapse: { ...lapse, announced: false } },
      ['2026-03-20T08:00:00'],
      TRACKED,
    );
    const older = foldVisits(active(), life, ['2026-02-20T08:00:00'], TRACKED);
    // Assess
    expect(back.facts.returned).toEqual({
      from: lapse.from,
      lastVisitAt: lapse.lastVisitAt,
      visitedAt: '2026-03-20T08:00:00',
      inactiveDays: 18,
    });
    expect(back.life).toEqual({ lastVisitAt: '2026-03-20T08:00:00' });
    expect(late.facts.returned?.inactiveDays).toBe(3);
    expect(silent.facts).toEqual({});
    expect(silent.life.lapse).toBeUndefined();
    expect(older.facts).toEqual({});
    expect(older.life).toEqual(life);
  });
});

describe('payments: Payment Recovered', () => {
  const out = (
    paymentId: string,
    at: string,
    outcome: 'succeeded' | 'failed',
    response = outcome === 'failed' ? 'Declined' : 'Approved',
  ) => ({ paymentId, at, outcome, response });

  it('recovers the latest failure before a success, whatever order the outcomes arrive in', () => {
    // Act
    const { life, recovered } = foldPayments({}, [
      out('30', '2026-03-03T09:00:00', 'succeeded'),
      out('10', '2026-03-01T09:00:00', 'failed', 'Dishonoured - Refer to Customer'),
      out('20', '2026-03-02T09:00:00', 'failed'),
    ]);
    // Assess
    expect(recovered).toEqual([
      {
        paymentId: '30',
        recoveredAt: '2026-03-03T09:00:00',
        failedPaymentId: '20',
        failedResponse: 'Declined',
        failedAt: '2026-03-02T09:00:00',
      },
    ]);
    expect(life).toEqual({ lastOutcomeAt: '2026-03-03T09:00:00', tied: ['30|succeeded'] });
  });

  it('a late failure dated before the recovery does not reopen it; a success after a success recovers nothing', () => {
    // Prepare
    const recoveredAlready = { lastOutcomeAt: '2026-03-03T09:00:00' };
    // Act
    const late = foldPayments(recoveredAlready, [
      out('15', '2026-03-02T12:00:00', 'failed'),
      out('40', '2026-03-04T09:00:00', 'succeeded'),
    ]);
    const open = foldPayments({}, [out('50', '2026-03-05T09:00:00', 'failed')]);
    // Assess
    expect(late.recovered).toEqual([]);
    expect(open.life.openFailure).toEqual({
      paymentId: '50',
      response: 'Declined',
      at: '2026-03-05T09:00:00',
    });
  });

  it('outcomes at one date are taken once each, in the order they arrived: reading them again changes nothing', () => {
    // Prepare: a success at 09:00, then (next evaluation) a failure at the same minute with a higher id.
    const first = foldPayments({}, [out('20', '2026-03-03T09:00:00', 'succeeded')]);
    const second = foldPayments(first.life, [
      out('20', '2026-03-03T09:00:00', 'succeeded'), // read again: its window overlaps
      out('30', '2026-03-03T09:00:00', 'failed'),
    ]);
    // Act: every later evaluation reads both again; then a success the day after.
    const again = foldPayments(second.life, [
      out('20', '2026-03-03T09:00:00', 'succeeded'),
      out('30', '2026-03-03T09:00:00', 'failed'),
    ]);
    const later = foldPayments(again.life, [out('40', '2026-03-04T09:00:00', 'succeeded')]);
    // Assess: the failure came after the success, so it is open, and only the next success recovers it.
    expect(second.recovered).toEqual([]);
    expect(again.recovered).toEqual([]);
    expect(again.life).toEqual(second.life);
    expect(later.recovered.map((r) => [r.paymentId, r.failedPaymentId])).toEqual([['40', '30']]);
  });
});
