/**
 * The one rule of every lifecycle event (docs/lifecycle.md, "Baseline and late qualifiers") for
 * the rules that read the visit history, Member Inactive and Member First Visit: a lapse counts
 * from the real last visit the baseline read; one already past its threshold then is baseline
 * (silent, and so is the visit that ends it), one that crosses after is announced at its moment,
 * across a change of daylight saving too; a member who comes to qualify later (Active again, new, a
 * start date moved) is announced at the later of the threshold moment, the poll that read the
 * change and the start of tracking; a membership started inside the history read, or after
 * tracking, is announced at its first visit. The date-window rules: late-qualifiers-windows.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { evaluateLifecycle } from '../../../lambdas/lifecycle/evaluate';
import type { MemberFacts } from '../../../lambdas/lifecycle/rules';
import { change, DAY, HOUR, input, later, MINUTE, OLD_START, SETTINGS, T0 } from './late-qualifiers-fixtures';

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
