/**
 * The one rule of every lifecycle event (docs/lifecycle.md, "Baseline and late qualifiers") for
 * the rules of a date coming inside a window, Prospect Trial Ending and Membership Expiring: what
 * the first evaluation saw satisfying a rule is the baseline and stays silent; a subject that comes
 * to satisfy a rule later (a new member or prospect, a status change, a date set or moved, a
 * re-activation) is announced by the first evaluation that sees it, at the later of the threshold
 * moment, the poll that read the change and the start of tracking. Next to each late case, the
 * "underway at the baseline" case, which stays silent. The rules that read the visit history:
 * late-qualifiers-visits.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { evaluateLifecycle } from '../../../lambdas/lifecycle/evaluate';
import type { MemberFacts, ProspectFacts } from '../../../lambdas/lifecycle/rules';
import { change, HOUR, input, kinds, later, MINUTE, OLD_START, T0 } from './late-qualifiers-fixtures';

describe('Prospect Trial Ending: late qualifiers', () => {
  it('a trial begun after tracking (Enquiry -> OnTrial) whose end is already inside the window', () => {
    // Prepare: an Enquiry at the baseline goes OnTrial two hours later with a 20-hour trial.
    const readAt = T0 + 2 * HOUR + 5 * MINUTE;
    // Act
    const { first, next } = later(
      { prospects: [['P1', { status: 'Enquiry' }]] },
      {
        atMs: T0 + 2 * HOUR + 30 * MINUTE,
        prospects: [['P1', { status: 'OnTrial', trialEndDate: '2026-06-02T08:00:00' }]],
        changes: { prospects: new Map([['P1', change(readAt, 'status', 'trialEndDate')]]) },
      },
    );
    // Assess: announced at the poll that read the change, not at the moment (end - 24 h, before it).
    expect(first.facts).toEqual([]);
    expect(next.facts).toMatchObject([
      { prospect: 'P1', fact: 'trialEnding', found: { hoursLeft: 19 }, occurredAtMs: readAt },
    ]);
  });

  it('underway at the baseline: an OnTrial prospect already inside the window stays silent', () => {
    // Act
    const { first, next } = later(
      { prospects: [['P2', { status: 'OnTrial', trialEndDate: '2026-06-02T08:00:00' }]] },
      { atMs: T0 + 3 * HOUR },
    );
    // Assess
    expect(first.facts).toEqual([]);
    expect(next.facts).toEqual([]);
  });

  it('a new prospect, a trial end set, moved earlier and moved later', () => {
    // Prepare: P4's trial end is set, P5's moved from 30 days to 10 hours, P6's (announced by an
    // evaluation) moved 2 hours later: still inside the window, so a new fact at once; P7's moved
    // two days later: a new fact when its own window opens.
    const readAt = T0 + HOUR;
    const onTrial = (trialEndDate?: string): ProspectFacts => ({
      status: 'OnTrial',
      ...(trialEndDate ? { trialEndDate } : {}),
    });
    const base = evaluateLifecycle(
      input({
        prospects: new Map([
          ['P4', onTrial()],
          ['P5', onTrial('2026-07-01T10:00:00')],
        ]),
      }),
    );
    const told = evaluateLifecycle(
      input({
        doc: base.doc,
        nowMs: T0 + HOUR / 2,
        prospects: new Map([
          ['P4', onTrial()],
          ['P5', onTrial('2026-07-01T10:00:00')],
          ['P6', onTrial('2026-06-02T09:00:00')],
          ['P7', onTrial('2026-06-02T09:00:00')],
        ]),
        changes: {
          prospects: new Map([
            ['P6', change(T0)],
            ['P7', change(T0)],
          ]),
        },
      }),
    );
    const moved = new Map([
      ['P3', onTrial('2026-06-01T22:00:00')],
      ['P4', onTrial('2026-06-02T06:00:00')],
      ['P5', onTrial('2026-06-01T20:00:00')],
      ['P6', onTrial('2026-06-02T11:00:00')],
      ['P7', onTrial('2026-06-04T09:00:00')],
    ]);
    const changes = {
      prospects: new Map([
        ['P3', change(readAt, 'status', 'trialEndDate')],
        ['P4', change(readAt, 'trialEndDate')],
        ['P5', change(readAt, 'trialEndDate')],
        ['P6', change(readAt, 'trialEndDate')],
        ['P7', change(readAt, 'trialEndDate')],
      ]),
    };
    // Act
    const found = evaluateLifecycle(
      input({ doc: told.doc, nowMs: T0 + 2 * HOUR, prospects: moved, changes }),
    );
    const opens = evaluateLifecycle(
      input({ doc: found.doc, nowMs: Date.parse('2026-06-02T23:00:00Z'), prospects: moved }),
    );
    // Assess
    expect(kinds(told.facts)).toEqual(['P6 trialEnding', 'P7 trialEnding']);
    expect(kinds(found.facts)).toEqual([
      'P3 trialEnding',
      'P4 trialEnding',
      'P5 trialEnding',
      'P6 trialEnding',
    ]);
    expect(found.facts.every((f) => f.occurredAtMs === readAt)).toBe(true);
    expect(found.nextAtMs).toBe(Date.parse('2026-06-02T23:00:00Z'));
    expect(opens.facts).toMatchObject([
      { prospect: 'P7', found: { trialEndDate: '2026-06-04T09:00:00', hoursLeft: 24 } },
    ]);
    expect(opens.facts[0]!.occurredAtMs).toBe(Date.parse('2026-06-02T23:00:00Z'));
  });
});

describe('Membership Expiring: late qualifiers', () => {
  it('a member who joins after tracking with a short paid-in-full membership', () => {
    // Prepare: joins two hours after the baseline; ExpiryDate two days away (expiringDays 2).
    const readAt = T0 + 2 * HOUR + MINUTE;
    // Act
    const { next } = later(
      {},
      {
        atMs: T0 + 3 * HOUR,
        members: [
          ['M1', { status: 'Active', startDate: '2026-06-01T00:00:00', expiryDate: '2026-06-03T00:00:00' }],
        ],
        changes: { members: new Map([['M1', change(readAt, 'status', 'startDate', 'expiryDate')]]) },
      },
    );
    // Assess
    expect(next.facts).toMatchObject([
      {
        member: 'M1',
        fact: 'due',
        found: { rule: 'expiring', kind: 'expiry', date: '2026-06-03T00:00:00', daysLeft: 2 },
        occurredAtMs: readAt,
      },
    ]);
  });

  it('underway at the baseline: an expiry already inside the window stays silent', () => {
    // Act
    const { first, next } = later(
      { members: [['M2', { status: 'Active', startDate: OLD_START, expiryDate: '2026-06-02T00:00:00' }]] },
      { atMs: T0 + 5 * HOUR },
    );
    // Assess
    expect([first.facts, next.facts]).toEqual([[], []]);
  });

  it('a term cut short, a date set, a date moved later; minimum terms alike', () => {
    // Prepare: M3's expiry moves from 30 days to tomorrow; M4 gets a minimum term two days away;
    // M5's expiry (silent at the baseline) moves a day later, still inside the window; M6's moves a
    // week later (a new fact when its window opens).
    const readAt = T0 + 4 * HOUR;
    const active = (more: Partial<MemberFacts>): MemberFacts => ({
      status: 'Active',
      startDate: OLD_START,
      ...more,
    });
    const before: [string, MemberFacts][] = [
      ['M3', active({ expiryDate: '2026-07-01T00:00:00' })],
      ['M4', active({})],
      ['M5', active({ expiryDate: '2026-06-02T00:00:00' })],
      ['M6', active({ expiryDate: '2026-06-02T00:00:00' })],
    ];
    const after: [string, MemberFacts][] = [
      ['M3', active({ expiryDate: '2026-06-02T00:00:00' })],
      ['M4', active({ minimumTermDate: '2026-06-03T00:00:00' })],
      ['M5', active({ expiryDate: '2026-06-03T00:00:00' })],
      ['M6', active({ expiryDate: '2026-06-09T00:00:00' })],
    ];
    const changes = {
      members: new Map([
        ['M3', change(readAt, 'expiryDate')],
        ['M4', change(readAt, 'minimumTermDate')],
        ['M5', change(readAt, 'expiryDate')],
        ['M6', change(readAt, 'expiryDate')],
      ]),
    };
    // Act
    const { first, next } = later({ members: before }, { atMs: T0 + 5 * HOUR, members: after, changes });
    const opens = evaluateLifecycle(
      input({ doc: next.doc, nowMs: Date.parse('2026-06-06T14:00:00Z'), members: new Map(after) }),
    );
    // Assess
    expect(first.facts).toEqual([]);
    expect(kinds(next.facts)).toEqual(['M3 expiring', 'M4 expiring', 'M5 expiring']);
    expect(next.facts.map((f) => f.fact === 'due' && f.found.rule === 'expiring' && f.found.kind)).toEqual([
      'expiry',
      'minimumTerm',
      'expiry',
    ]);
    expect(next.facts.every((f) => f.occurredAtMs === readAt)).toBe(true);
    expect(opens.facts).toMatchObject([
      { member: 'M6', found: { date: '2026-06-09T00:00:00', daysLeft: 2 } },
    ]);
    expect(opens.facts[0]!.occurredAtMs).toBe(Date.parse('2026-06-06T14:00:00Z'));
  });

  it('re-activation: Suspended, PaymentIssue and PendingActivation members who become Active', () => {
    // Prepare: each has an expiry inside the window from before tracking began.
    const expiry = { startDate: OLD_START, expiryDate: '2026-06-02T12:00:00' };
    const before: [string, MemberFacts][] = [
      ['M7', { status: 'Suspended', ...expiry }],
      ['M8', { status: 'PaymentIssue', ...expiry }],
      ['M9', { status: 'PendingActivation', ...expiry }],
      ['M10', { status: 'Active', ...expiry, cancellationDate: '2026-06-02T00:00:00' }],
    ];
    const after: [string, MemberFacts][] = [
      ['M7', { status: 'Active', ...expiry }],
      ['M8', { status: 'Active', ...expiry }],
      ['M9', { status: 'Active', ...expiry }],
      ['M10', { status: 'Active', ...expiry }],
    ];
    const readAt = T0 + 6 * HOUR;
    const changes = {
      members: new Map([
        ['M7', change(readAt, 'status')],
        ['M8', change(readAt, 'status')],
        ['M9', change(readAt + MINUTE, 'status')],
        ['M10', change(readAt, 'cancellationDate')],
      ]),
    };
    // Act
    const { first, next } = later({ members: before }, { atMs: T0 + 7 * HOUR, members: after, changes });
    // Assess
    expect(first.facts).toEqual([]);
    expect(kinds(next.facts)).toEqual(['M7 expiring', 'M8 expiring', 'M9 expiring', 'M10 expiring']);
    expect(next.facts.map((f) => f.occurredAtMs)).toEqual([readAt, readAt, readAt + MINUTE, readAt]);
  });
});
