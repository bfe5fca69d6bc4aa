/**
 * evaluateLifecycle: the first evaluation is silent, crossings after it are facts once, an
 * evaluation repeated with the document it returned finds nothing new, and one repeated with the
 * older document (a crash before it was kept) finds the same facts again.
 */
import { describe, expect, it } from 'vitest';
import { evaluateLifecycle, type LifecycleInput } from '../../../lambdas/lifecycle/evaluate';
import type { PaymentOutcome } from '../../../lambdas/lifecycle/folds';
import { LIFECYCLE_DEFAULTS, type MemberFacts, type ProspectFacts } from '../../../lambdas/lifecycle/rules';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Sydney in June: UTC+10. Tracking begins 2026-06-01T10:00 local.
const T0 = Date.parse('2026-06-01T00:00:00Z');
const base = (over: Partial<LifecycleInput>): LifecycleInput => ({
  doc: undefined,
  nowMs: T0,
  zone: 'Australia/Sydney',
  settings: LIFECYCLE_DEFAULTS,
  members: new Map<string, MemberFacts>(),
  prospects: new Map<string, ProspectFacts>(),
  visits: new Map(),
  payments: new Map(),
  ...over,
});
const pay = (paymentId: string, at: string, outcome: 'succeeded' | 'failed'): PaymentOutcome => ({
  paymentId,
  at,
  outcome,
  response: outcome === 'failed' ? 'Declined' : 'Approved',
});

describe('evaluateLifecycle', () => {
  it('the first evaluation starts tracking and records what is underway without a fact', () => {
    // Prepare
    const input = base({
      members: new Map([
        ['M1', { status: 'Active', startDate: '2025-01-01T00:00:00', expiryDate: '2026-06-10T00:00:00' }],
      ]),
      prospects: new Map([['P1', { status: 'OnTrial', trialEndDate: '2026-06-02T09:00:00' }]]),
      visits: new Map([['M1', ['2026-05-31T18:00:00']]]),
      payments: new Map([
        ['M1', [pay('1', '2026-05-30T09:00:00', 'failed'), pay('2', '2026-05-31T09:00:00', 'succeeded')]],
      ]),
    });
    // Act
    const first = evaluateLifecycle(input);
    const again = evaluateLifecycle({ ...input, doc: first.doc, nowMs: T0 + HOUR });
    // Assess
    expect(first.facts).toEqual([]);
    expect(first.doc).toMatchObject({
      trackedSince: '2026-06-01T10:00:00',
      trackedSinceMs: T0,
      members: { M1: { lastVisitAt: '2026-05-31T18:00:00', expiring: ['expiry|2026-06-10T00:00:00'] } },
      prospects: { P1: ['2026-06-02T09:00:00'] },
    });
    expect(again.facts).toEqual([]);
  });

  it('announces each crossing after tracking once; the older document finds the same facts again', () => {
    // Prepare: tracking began; then a new member, a visit, a failure and its recovery, an expiry ahead.
    const tracked = evaluateLifecycle(base({})).doc;
    const input = base({
      doc: tracked,
      nowMs: T0 + 10 * DAY,
      members: new Map([
        ['M2', { status: 'Active', startDate: '2026-06-03T00:00:00', expiryDate: '2026-06-20T00:00:00' }],
      ]),
      visits: new Map([['M2', ['2026-06-04T07:00:00', '2026-06-05T07:00:00']]]),
      payments: new Map([
        ['M2', [pay('7', '2026-06-06T09:00:00', 'failed'), pay('8', '2026-06-08T09:00:00', 'succeeded')]],
      ]),
    });
    // Act
    const found = evaluateLifecycle(input);
    const repeated = evaluateLifecycle({ ...input, doc: found.doc });
    const afterCrash = evaluateLifecycle(input);
    // Assess
    expect(found.facts.map((f) => f.fact)).toEqual(['firstVisit', 'recovered', 'due']);
    expect(found.facts[0]).toMatchObject({
      member: 'M2',
      found: { membershipStartDate: '2026-06-03T00:00:00', visitedAt: '2026-06-04T07:00:00' },
    });
    expect(found.facts[1]).toMatchObject({
      found: { paymentId: '8', failedPaymentId: '7', failedResponse: 'Declined' },
    });
    expect(found.facts[2]).toMatchObject({ found: { rule: 'expiring', kind: 'expiry', daysLeft: 9 } });
    expect(repeated.facts).toEqual([]);
    expect(afterCrash.facts).toEqual(found.facts);
  });

  it('a member not seen visiting lapses inactiveDays after tracking began, and returns with a visit', () => {
    // Prepare
    const members = new Map([['M3', { status: 'Active', startDate: '2025-01-01T00:00:00' }]]);
    const tracked = evaluateLifecycle(base({ members })).doc;
    // Act
    const before = evaluateLifecycle(base({ doc: tracked, members, nowMs: T0 + 14 * DAY - 1 }));
    const lapsed = evaluateLifecycle(base({ doc: tracked, members, nowMs: T0 + 14 * DAY }));
    const back = evaluateLifecycle(
      base({
        doc: lapsed.doc,
        members,
        nowMs: T0 + 16 * DAY,
        visits: new Map([['M3', ['2026-06-17T08:00:00']]]),
      }),
    );
    // Assess
    expect(before.facts).toEqual([]);
    expect(before.nextAtMs).toBe(T0 + 14 * DAY);
    expect(lapsed.facts).toEqual([
      {
        member: 'M3',
        fact: 'due',
        found: {
          rule: 'inactive',
          from: '2026-06-01T10:00:00',
          lastVisitAt: null,
          inactiveDays: 14,
          thresholdDays: 14,
          momentMs: T0 + 14 * DAY,
        },
        occurredAtMs: T0 + 14 * DAY,
      },
    ]);
    expect(back.facts).toMatchObject([
      {
        member: 'M3',
        fact: 'returned',
        found: {
          from: '2026-06-01T10:00:00',
          lastVisitAt: null,
          visitedAt: '2026-06-17T08:00:00',
          inactiveDays: 15,
        },
      },
    ]);
    expect(back.doc.members.M3).toEqual({ lastVisitAt: '2026-06-17T08:00:00' });
  });

  it('keeps only marks that can still fire: a passed expiry and a prospect past its trial end are dropped', () => {
    // Prepare
    const members = new Map([
      ['M4', { status: 'Active', startDate: '2025-01-01T00:00:00', expiryDate: '2026-06-10T00:00:00' }],
    ]);
    const prospects = new Map([['P2', { status: 'OnTrial', trialEndDate: '2026-06-02T09:00:00' }]]);
    const first = evaluateLifecycle(
      base({ members, prospects, visits: new Map([['M4', ['2026-05-31T18:00:00']]]) }),
    );
    // Act
    const later = evaluateLifecycle(
      base({
        doc: first.doc,
        members,
        prospects,
        nowMs: T0 + 12 * DAY,
        visits: new Map([['M4', ['2026-06-12T08:00:00']]]),
      }),
    );
    // Assess
    expect(later.facts).toEqual([]);
    expect(later.doc.members.M4).toEqual({ lastVisitAt: '2026-06-12T08:00:00' });
    expect(later.doc.prospects).toEqual({});
  });
});
