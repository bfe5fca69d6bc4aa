/**
 * The one rule of every lifecycle event (docs/lifecycle.md, "Baseline and late qualifiers"): what
 * the first evaluation saw satisfying a rule is the baseline and stays silent; a subject that comes
 * to satisfy a rule later (a new member or prospect, a status change, a date set or moved, a
 * re-activation) is announced by the first evaluation that sees it, at the later of the threshold
 * moment, the poll that read the change and the start of tracking. Next to each late case, the
 * "underway at the baseline" case, which stays silent.
 */
import { describe, expect, it } from 'vitest';
import {
  evaluateLifecycle,
  type FactChange,
  type LifecycleFact,
  type LifecycleInput,
} from '../../../lambdas/lifecycle/evaluate';
import type { MemberFacts, ProspectFacts } from '../../../lambdas/lifecycle/rules';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const DAY = 24 * HOUR;
// Sydney in June: UTC+10. Tracking begins 2026-06-01T10:00 local.
const ZONE = 'Australia/Sydney';
const T0 = Date.parse('2026-06-01T00:00:00Z');
const SETTINGS = { inactiveDays: 14, expiringDays: 2, trialEndingHours: 24 };
const OLD_START = '2025-01-01T00:00:00';

const input = (over: Partial<LifecycleInput>): LifecycleInput => ({
  doc: undefined,
  nowMs: T0,
  zone: ZONE,
  settings: SETTINGS,
  members: new Map<string, MemberFacts>(),
  prospects: new Map<string, ProspectFacts>(),
  visits: new Map(),
  payments: new Map(),
  ...over,
});
const change = (atMs: number, ...fields: string[]): FactChange => ({ atMs, fields });
const kinds = (facts: readonly LifecycleFact[]) =>
  facts.map((f) => `${'member' in f ? f.member : f.prospect} ${f.fact === 'due' ? f.found.rule : f.fact}`);

/** The baseline of `members` and `prospects`, then one evaluation at `atMs` of what changed. */
function later(
  before: { members?: [string, MemberFacts][]; prospects?: [string, ProspectFacts][] },
  after: {
    atMs: number;
    members?: [string, MemberFacts][];
    prospects?: [string, ProspectFacts][];
    changes?: LifecycleInput['changes'];
    visits?: LifecycleInput['visits'];
  },
  history?: { from: string; visits: [string, string[]][] },
) {
  const first = evaluateLifecycle(
    input({
      members: new Map(before.members ?? []),
      prospects: new Map(before.prospects ?? []),
      ...(history ? { historyFrom: history.from, visits: new Map(history.visits) } : {}),
    }),
  );
  const next = evaluateLifecycle(
    input({
      doc: first.doc,
      nowMs: after.atMs,
      members: new Map(after.members ?? before.members ?? []),
      prospects: new Map(after.prospects ?? before.prospects ?? []),
      ...(after.changes ? { changes: after.changes } : {}),
      ...(after.visits ? { visits: after.visits } : {}),
    }),
  );
  return { first, next };
}

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

describe('Member Inactive: late qualifiers and the real last visit', () => {
  it('counts from the last visit the baseline read; a lapse past its threshold then is silent', () => {
    // Prepare: the history read at the baseline reaches back inactiveDays (14): M11 last visited 10
    // days before, M12 not at all in those 14 days.
    const members: [string, MemberFacts][] = [
      ['M11', { status: 'Active', startDate: OLD_START }],
      ['M12', { status: 'Active', startDate: OLD_START }],
    ];
    const history = {
      from: '2026-05-18T10:00:00',
      visits: [['M11', ['2026-05-22T07:30:00']]] as [string, string[]][],
    };
    const moment = Date.parse('2026-06-04T21:30:00Z'); // 2026-06-05T07:30 local
    // Act
    const { first, next } = later({ members }, { atMs: moment }, history);
    const before = evaluateLifecycle(input({ doc: first.doc, nowMs: moment - 1, members: new Map(members) }));
    // Assess
    expect(first.doc.seenFrom).toBe('2026-05-18T10:00:00');
    expect(first.doc.members.M11).toEqual({ lastVisitAt: '2026-05-22T07:30:00' });
    expect(before.facts).toEqual([]);
    expect(next.facts).toMatchObject([
      {
        member: 'M11',
        fact: 'due',
        found: { rule: 'inactive', from: '2026-05-22T07:30:00', lastVisitAt: '2026-05-22T07:30:00' },
        occurredAtMs: moment,
      },
    ]);
  });

  it('a member who becomes Active again with a lapse past its threshold: announced at the change', () => {
    // Prepare: Suspended at the baseline; last visit 12 days before it; Active again 3 days later.
    const history = {
      from: '2026-05-18T10:00:00',
      visits: [['M13', ['2026-05-20T09:00:00']]] as [string, string[]][],
    };
    const readAt = T0 + 3 * DAY;
    // Act
    const { next } = later(
      { members: [['M13', { status: 'Suspended', startDate: OLD_START }]] },
      {
        atMs: T0 + 3 * DAY + HOUR,
        members: [['M13', { status: 'Active', startDate: OLD_START }]],
        changes: { members: new Map([['M13', change(readAt, 'status')]]) },
      },
      history,
    );
    // Assess
    expect(next.facts).toMatchObject([
      {
        member: 'M13',
        found: { rule: 'inactive', lastVisitAt: '2026-05-20T09:00:00' },
        occurredAtMs: readAt,
      },
    ]);
  });

  it('a new member lapses inactiveDays after the start; a change of another fact does not move occurredAt', () => {
    // Prepare
    const joined: MemberFacts = { status: 'Active', startDate: '2026-06-02T00:00:00' };
    const { next } = later(
      {},
      {
        atMs: T0 + DAY,
        members: [['M14', joined]],
        changes: { members: new Map([['M14', change(T0 + DAY - HOUR, 'status', 'startDate')]]) },
      },
    );
    const moment = Date.parse('2026-06-15T14:00:00Z'); // 2026-06-16T00:00 local
    // Act
    const lapsed = evaluateLifecycle(
      input({
        doc: next.doc,
        nowMs: moment + 30 * MINUTE,
        members: new Map([['M14', { ...joined, expiryDate: '2027-06-02T00:00:00' }]]),
        changes: { members: new Map([['M14', change(moment + 10 * MINUTE, 'expiryDate')]]) },
      }),
    );
    // Assess
    expect(next.facts).toEqual([]);
    expect(lapsed.facts).toMatchObject([
      { member: 'M14', found: { rule: 'inactive' }, occurredAtMs: moment },
    ]);
  });

  it('a start date moved earlier (a lapse past its threshold at once) and later (a new lapse at its moment)', () => {
    // Prepare: both joined the day tracking began and were not seen since; M17's start is corrected
    // three weeks earlier, M18's a week later (a membership that starts later).
    const members: [string, MemberFacts][] = [
      ['M17', { status: 'Active', startDate: '2026-06-01T00:00:00' }],
      ['M18', { status: 'Active', startDate: '2026-06-01T00:00:00' }],
    ];
    const readAt = T0 + 2 * DAY;
    const after: [string, MemberFacts][] = [
      ['M17', { status: 'Active', startDate: '2026-05-11T00:00:00' }],
      ['M18', { status: 'Active', startDate: '2026-06-08T00:00:00' }],
    ];
    const changes = {
      members: new Map([
        ['M17', change(readAt, 'startDate')],
        ['M18', change(readAt, 'startDate')],
      ]),
    };
    const history = { from: '2026-05-18T10:00:00', visits: [] as [string, string[]][] };
    // Act
    const { first, next } = later({ members }, { atMs: readAt + HOUR, members: after, changes }, history);
    const m18Moment = Date.parse('2026-06-21T14:00:00Z'); // 2026-06-22T00:00 local, 14 days after
    const oldMoment = evaluateLifecycle(
      input({ doc: next.doc, nowMs: Date.parse('2026-06-14T14:00:00Z'), members: new Map(after) }),
    );
    const newMoment = evaluateLifecycle(
      input({ doc: oldMoment.doc, nowMs: m18Moment, members: new Map(after) }),
    );
    // Assess: M17 counts from the history's start (its start is before it), due since 2026-06-01.
    expect(first.facts).toEqual([]);
    expect(next.facts).toMatchObject([
      { member: 'M17', found: { rule: 'inactive', from: '2026-05-18T10:00:00' }, occurredAtMs: readAt },
    ]);
    expect(oldMoment.facts).toEqual([]);
    expect(newMoment.facts).toMatchObject([
      { member: 'M18', found: { rule: 'inactive', from: '2026-06-08T00:00:00' }, occurredAtMs: m18Moment },
    ]);
  });
});

describe('Member First Visit: late qualifiers', () => {
  it('a membership that started inside the history read without a visit is announced at its first visit', () => {
    // Prepare: M15 started 5 days before tracking and has not visited; M16 started then and visited.
    const members: [string, MemberFacts][] = [
      ['M15', { status: 'Active', startDate: '2026-05-27T00:00:00' }],
      ['M16', { status: 'Active', startDate: '2026-05-27T00:00:00' }],
    ];
    const history = {
      from: '2026-05-18T10:00:00',
      visits: [['M16', ['2026-05-28T18:00:00']]] as [string, string[]][],
    };
    // Act
    const { first, next } = later(
      { members },
      {
        atMs: T0 + DAY,
        visits: new Map([
          ['M15', ['2026-06-02T07:00:00']],
          ['M16', ['2026-06-02T07:00:00']],
        ]),
      },
      history,
    );
    // Assess
    expect(first.facts).toEqual([]);
    expect(next.facts).toMatchObject([
      {
        member: 'M15',
        fact: 'firstVisit',
        found: { membershipStartDate: '2026-05-27T00:00:00', visitedAt: '2026-06-02T07:00:00' },
        occurredAtMs: Date.parse('2026-06-01T21:00:00Z'),
      },
    ]);
  });

  it('a new membership (its start set after tracking) is announced at its first visit, not at the change', () => {
    // Prepare: M19, a member for years who visited at the baseline, starts a new membership.
    const history = {
      from: '2026-05-18T10:00:00',
      visits: [['M19', ['2026-05-30T08:00:00']]] as [string, string[]][],
    };
    const renewed: MemberFacts = { status: 'Active', startDate: '2026-06-03T00:00:00' };
    // Act
    const { first, next } = later(
      { members: [['M19', { status: 'Active', startDate: OLD_START }]] },
      {
        atMs: T0 + 3 * DAY,
        members: [['M19', renewed]],
        changes: { members: new Map([['M19', change(T0 + DAY, 'startDate')]]) },
        visits: new Map([['M19', ['2026-06-02T07:00:00', '2026-06-03T18:15:00']]]),
      },
      history,
    );
    // Assess: the visit before the new start is not its first.
    expect(first.facts).toEqual([]);
    expect(next.facts).toMatchObject([
      {
        member: 'M19',
        fact: 'firstVisit',
        found: { membershipStartDate: '2026-06-03T00:00:00', visitedAt: '2026-06-03T18:15:00' },
        occurredAtMs: Date.parse('2026-06-03T08:15:00Z'),
      },
    ]);
  });
});

describe('a lapse from the real last visit across a change of daylight saving', () => {
  it('Sydney, baseline at 13:00 the day before DST ends: the lapse comes due a day after the visit', () => {
    // Prepare: DST ends in Sydney on 2026-04-05 at 03:00 (UTC+11 -> UTC+10); inactiveDays 1. The
    // baseline at 2026-04-04T13:00 local read the visits of that morning.
    const settings = { ...SETTINGS, inactiveDays: 1 };
    const baselineMs = Date.parse('2026-04-04T02:00:00Z');
    const members = new Map<string, MemberFacts>([
      ['M1', { status: 'Active', startDate: OLD_START }],
      ['M2', { status: 'Active', startDate: OLD_START }],
    ]);
    const first = evaluateLifecycle(
      input({
        nowMs: baselineMs,
        settings,
        members,
        historyFrom: '2026-04-03T13:00:00',
        visits: new Map([
          ['M1', ['2026-04-04T10:00:00']],
          ['M2', ['2026-04-04T10:30:00']],
        ]),
      }),
    );
    const at = (iso: string) =>
      evaluateLifecycle(input({ doc: first.doc, nowMs: Date.parse(iso), settings, members }));
    // Act: 10:00 and 10:30 local on April 5 are 00:00Z and 00:30Z (25 hours after the visits).
    const tenOClock = at('2026-04-05T00:00:00Z');
    const beforeTen = at('2026-04-04T23:59:59Z');
    // Assess
    expect(first.facts).toEqual([]);
    expect(beforeTen.facts).toEqual([]);
    expect(beforeTen.nextAtMs).toBe(Date.parse('2026-04-05T00:00:00Z'));
    expect(tenOClock.facts).toMatchObject([
      {
        member: 'M1',
        found: { rule: 'inactive', from: '2026-04-04T10:00:00', lastVisitAt: '2026-04-04T10:00:00' },
        occurredAtMs: Date.parse('2026-04-05T00:00:00Z'),
      },
    ]);
    expect(tenOClock.nextAtMs).toBe(Date.parse('2026-04-05T00:30:00Z'));
  });
});

describe('a baseline lapse', () => {
  it('is recorded silent, so the visit that ends it is no Member Returned', () => {
    // Prepare: no visit in the 14 days of history: the lapse is past its threshold at the baseline.
    const members = new Map<string, MemberFacts>([['M1', { status: 'Active', startDate: OLD_START }]]);
    const first = evaluateLifecycle(input({ members, historyFrom: '2026-05-18T10:00:00' }));
    // Act
    const back = evaluateLifecycle(
      input({ doc: first.doc, nowMs: T0 + DAY, members, visits: new Map([['M1', ['2026-06-02T07:00:00']]]) }),
    );
    // Assess
    expect(first.doc.members.M1?.lapse).toEqual({
      from: '2026-05-18T10:00:00',
      lastVisitAt: null,
      announced: false,
    });
    expect(back.facts).toEqual([]);
    expect(back.doc.members.M1).toEqual({ lastVisitAt: '2026-06-02T07:00:00' });
  });
});
