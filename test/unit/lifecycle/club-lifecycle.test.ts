/**
 * The club poll's lifecycle step, its pure parts (docs/lifecycle.md): the club's settings, when a
 * poll may evaluate, and the event of each fact (its eventId from the fact's identity only, its
 * times in UTC and the club's local time).
 */
import { describe, expect, it } from 'vitest';
import type { ClubConfig } from '../../../lambdas/clubs/club-config';
import { makeEventId } from '../../../lambdas/events/event-id';
import {
  evaluationHourStartMs,
  hourOf,
  lifecycleSettingsOf,
  notReady,
} from '../../../lambdas/lifecycle/club-lifecycle';
import { lifecycleEvent } from '../../../lambdas/lifecycle/lifecycle-events';
import { type Cursor, newCursor } from '../../../lambdas/state';

const club = (extra: Partial<ClubConfig> = {}): ClubConfig => ({
  clubId: 'club-1',
  baseUrl: 'https://api.example.com/v1',
  timeZone: 'Australia/Sydney',
  plan: 'basic',
  credentials: { username: 'u', password: 'p', apiKey: 'k' },
  enabled: true,
  piiPolicy: 'minimal',
  unstatedZone: 'local',
  unstatedZoneConfirmed: false,
  ...extra,
});

const done = (source: Cursor['source']): Cursor => ({
  ...newCursor('club-1', source),
  baselineDone: true,
  version: 3,
});
const ALL = ['members', 'prospects', 'visits', 'paymentHistory'] as const;

describe('lifecycleSettingsOf', () => {
  it('gives the defaults when the club says nothing, its own thresholds when it does, nothing when off', () => {
    expect(lifecycleSettingsOf(club())).toEqual({ inactiveDays: 14, expiringDays: 14, trialEndingHours: 24 });
    const own = club({
      lifecycle: { enabled: true, inactiveDays: 30, expiringDays: 7, trialEndingHours: 48 },
    });
    expect(lifecycleSettingsOf(own)).toEqual({ inactiveDays: 30, expiringDays: 7, trialEndingHours: 48 });
    const off = club({
      lifecycle: { enabled: false, inactiveDays: 30, expiringDays: 7, trialEndingHours: 48 },
    });
    expect(lifecycleSettingsOf(off)).toBeUndefined();
  });
});

describe('notReady', () => {
  it('needs members and visits, every baseline done, and every source it reads current', () => {
    const cursors = ALL.map(done);
    const all = { polled: new Set(ALL), completed: new Set(ALL) };
    expect(notReady(club(), cursors, all)).toBeUndefined();
    expect(notReady(club({ sources: ['members', 'prospects'] }), cursors, all)).toMatch(
      /need the members and visits/,
    );
    const firstPoll = [...cursors.slice(0, 3), newCursor('club-1', 'paymentHistory')];
    expect(notReady(club(), firstPoll, all)).toBe('waiting for the first poll of paymentHistory');
    // Polled and not completed (failed or incomplete): behind.
    const visitsFailed = { polled: new Set(ALL), completed: new Set(ALL.filter((s) => s !== 'visits')) };
    expect(notReady(club(), cursors, visitsFailed)).toBe('visits not current (failed or incomplete)');
    // Not in this poll (not due): current while its last poll succeeded.
    const two = new Set(['members', 'visits'] as const);
    const onlyTwo = { polled: two, completed: two };
    expect(notReady(club(), cursors, onlyTwo)).toBeUndefined();
    const failing = cursors.map((c) =>
      c.source === 'paymentHistory' ? { ...c, health: { consecutiveFailures: 2 } } : c,
    );
    expect(notReady(club(), failing, onlyTwo)).toBe('paymentHistory not current (failed or incomplete)');
    // A club that does not poll prospects or payments evaluates without them.
    const narrow = club({ sources: ['members', 'visits'] });
    expect(notReady(narrow, [done('members'), done('visits')], onlyTwo)).toBeUndefined();
  });

  it('hourOf: one evaluation per hour of 60 minutes, starting at the club slot minute, whatever the zone', () => {
    const start = evaluationHourStartMs('club-1', 493_000);
    expect(hourOf('club-1', start)).toBe(493_000);
    expect(hourOf('club-1', start + 3_599_999)).toBe(493_000);
    expect(hourOf('club-1', start + 3_600_000)).toBe(493_001);
    expect(hourOf('club-1', start - 1)).toBe(492_999);
  });
});

describe('lifecycleEvent', () => {
  const ctx = { clubId: 'club-1', zone: 'Australia/Sydney', nowMs: Date.parse('2026-04-05T03:30:00Z') };

  it('a visit fact: occurredAt is the visit in UTC, the id is the fact identity whatever the evaluation', () => {
    const fact = {
      member: '1001',
      fact: 'firstVisit' as const,
      found: { membershipStartDate: '2026-04-01T00:00:00', visitedAt: '2026-04-05T09:15:00' },
      occurredAtMs: Date.parse('2026-04-04T23:15:00Z'),
    };
    const event = lifecycleEvent(ctx, fact);
    const later = lifecycleEvent({ ...ctx, nowMs: ctx.nowMs + 3_600_000 }, fact);
    expect(event.detailType).toBe('Member First Visit');
    // Sydney is UTC+10 on 2026-04-05 (DST ended that morning at 03:00 local).
    expect(event.detail).toMatchObject({
      occurredAt: '2026-04-04T23:15:00.000Z',
      occurredAtLocal: '2026-04-05T09:15:00',
      observedAt: '2026-04-05T03:30:00.000Z',
      subject: { memberNumber: '1001' },
      visitedAt: '2026-04-05T09:15:00',
      membershipStartDate: '2026-04-01T00:00:00',
    });
    expect(later.detail.eventId).toBe(event.detail.eventId);
    expect(event.detail.eventId).toBe(
      makeEventId('club-1', 'lifecycle', 'Member First Visit', '1001', 'firstVisit', '2026-04-01T00:00:00'),
    );
  });

  it("a time-based fact: occurredAt is the fact's (its moment, or when it qualified); Inactive, Expiring and Trial Ending carry their fields", () => {
    const momentMs = Date.parse('2026-04-04T14:00:00Z');
    const inactive = lifecycleEvent(ctx, {
      member: '1001',
      fact: 'due',
      found: {
        rule: 'inactive',
        from: '2026-03-21T01:00:00',
        lastVisitAt: null,
        inactiveDays: 14,
        thresholdDays: 14,
        momentMs,
      },
      occurredAtMs: momentMs,
    });
    const expiring = lifecycleEvent(ctx, {
      member: '1001',
      fact: 'due',
      found: { rule: 'expiring', kind: 'minimumTerm', date: '2026-04-18T00:00:00', daysLeft: 13, momentMs },
      occurredAtMs: momentMs + 3_600_000,
    });
    const trial = lifecycleEvent(ctx, {
      prospect: 'P7',
      fact: 'trialEnding',
      found: { rule: 'trialEnding', trialEndDate: '2026-04-06T00:00:00', hoursLeft: 10, momentMs },
      occurredAtMs: momentMs,
    });
    expect(inactive.detail).toMatchObject({
      occurredAt: '2026-04-04T14:00:00.000Z',
      lastVisitAt: null,
      thresholdDays: 14,
    });
    expect(inactive.detail.eventId).toBe(
      makeEventId('club-1', 'lifecycle', 'Member Inactive', '1001', 'inactive', '2026-03-21T01:00:00'),
    );
    // A fact that qualified after its moment (a date moved into the window) occurred when it did.
    expect(expiring.detail).toMatchObject({
      kind: 'minimumTerm',
      date: '2026-04-18T00:00:00',
      daysLeft: 13,
      occurredAt: '2026-04-04T15:00:00.000Z',
      occurredAtLocal: '2026-04-05T02:00:00',
    });
    expect(trial.detail).toMatchObject({
      subject: { prospectNumber: 'P7' },
      hoursLeft: 10,
      occurredAtLocal: '2026-04-05T01:00:00',
    });
  });
});
