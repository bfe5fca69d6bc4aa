/**
 * What a club poll writes besides the scan, on the in-memory store (no sockets): failures and the
 * pauses they start, unavailable marks, the once-a-month quota alert, and the operational events.
 */
import { describe, expect, it } from 'vitest';
import { Announcer } from '../../../../lambdas/engine/club-poll/announcer';
import {
  MAX_RETRY_AFTER_MS,
  UNAVAILABLE_RETRY_MS,
} from '../../../../lambdas/engine/club-poll/failure-policy';
import { countQuotaUsage } from '../../../../lambdas/engine/club-poll/quota-check';
import {
  clearUnavailableMark,
  recordFailure,
  recordUnavailable,
} from '../../../../lambdas/engine/cursor/cursor-writes';
import { MemorySink } from '../../../../lambdas/events/publisher';
import { AuthError } from '../../../../lambdas/gym-api/errors';
import { pauseEvent, staleEvent } from '../../../../lambdas/sources/operational-events';
import { MemoryStateStore } from '../../../../lambdas/state';
import { newCursor } from '../../../../lambdas/state/store';
import { openSession, seedQuota } from '../../../support/state-seeds';

const MINUTE = 60_000;
const NOW = Date.parse('2026-06-10T12:00:00.000Z');
const club = { clubId: 'club-1', plan: 'basic' as const, piiPolicy: 'minimal' as const };

describe('cursor health', () => {
  it('counts failures of one kind in a row and pauses only on a 401 or 429, honouring Retry-After', async () => {
    // Prepare
    const store = await openSession(new MemoryStateStore(), 'club-1');
    // Act: two 503s, then a 429 saying "next month" (beyond the cap), then a 401.
    await recordFailure(store, 'visits', { kind: 'unavailable', message: '503' }, NOW);
    const second = await recordFailure(store, 'visits', { kind: 'unavailable', message: '503' }, NOW);
    const quota = await recordFailure(
      store,
      'members',
      { kind: 'quota', message: '429', retryAfterMs: 90 * 24 * 60 * MINUTE },
      NOW,
    );
    const auth = await recordFailure(store, 'prospects', { kind: 'auth', message: '401' }, NOW);
    // Assess
    expect(second?.health).toMatchObject({ consecutiveFailures: 2, lastError: { kind: 'unavailable' } });
    expect(second?.health.pausedUntil).toBeUndefined();
    expect(quota?.health.pausedUntil).toBe(new Date(NOW + MAX_RETRY_AFTER_MS).toISOString());
    expect(auth?.health.pausedUntil).toBe(new Date(NOW + 5 * MINUTE).toISOString());
  });

  it('marks an endpoint unavailable once per episode and clears the mark', async () => {
    // Prepare
    const store = new MemoryStateStore();
    const session = await openSession(store, 'club-1');
    const cause = { kind: 'not-found' as const, status: 404 };
    // Act
    const first = await recordUnavailable(session, 'classAttendance', cause, 'HTTP 404', NOW);
    const again = await recordUnavailable(session, 'classAttendance', cause, 'HTTP 404', NOW + MINUTE);
    const cleared = await clearUnavailableMark(session, 'classAttendance');
    const nothing = await clearUnavailableMark(session, 'classAttendance');
    await session.close();
    // Assess
    expect(first).toMatchObject({ fresh: true, mark: { kind: 'not-found', status: 404 } });
    expect(again?.fresh).toBe(false);
    expect(again?.mark.since).toBe(first?.mark.since);
    expect(again?.mark.retryAt).toBe(new Date(NOW + MINUTE + UNAVAILABLE_RETRY_MS).toISOString());
    expect(cleared?.since).toBe(first?.mark.since);
    expect(nothing).toBeUndefined();
    expect((await store.view('club-1').getCursor('classAttendance')).health.unavailable).toBeUndefined();
  });
});

describe('countQuotaUsage', () => {
  it('counts the requests and announces the alert share once a month', async () => {
    // Prepare: 790,000 of 1,000,000 used; the alert at 80%.
    const store = new MemoryStateStore();
    await seedQuota(store, 'club-1', '2026-06', 790_000);
    const session = await openSession(store, 'club-1');
    const sink = new MemorySink();
    const announcer = new Announcer({ store: session, sink, club, now: () => NOW });
    const check = { store: session, club, nowMs: NOW, announcer };
    // Act
    const below = await countQuotaUsage(check, 5_000);
    const crossing = await countQuotaUsage(check, 5_000);
    const after = await countQuotaUsage(check, 5_000);
    const none = await countQuotaUsage(check, 0);
    // Assess
    expect([below, crossing, after, none]).toEqual([795_000, 800_000, 805_000, undefined]);
    expect(sink.events.map((e) => e.detailType)).toEqual(['Club Quota Low']);
    expect(sink.events[0]!.detail).toMatchObject({ reason: 'threshold', used: 800_000, limit: 1_000_000 });
  });
});

describe('operational events', () => {
  it('says which credential was rejected, and nothing more', () => {
    const err = new AuthError('HTTP 401 (apiKey rejected)', { operation: 'GetVisits', reason: 'apiKey' });
    const until = new Date(NOW + 5 * MINUTE).toISOString();
    const event = pauseEvent(club, 'auth', err, 1, until, NOW, 0);
    expect(event.detailType).toBe('Club Credentials Rejected');
    expect(event.detail).toMatchObject({ reason: 'apiKey', consecutiveFailures: 1, pausedUntil: until });
    expect(pauseEvent(club, 'quota', err, 1, until, NOW, 123).detail).toMatchObject({
      reason: 'rate-limited',
    });
  });

  it('announces a stale source once per episode', () => {
    const lastSuccessAt = new Date(NOW - 40 * MINUTE).toISOString();
    const cursor = { ...newCursor('club-1', 'visits'), health: { consecutiveFailures: 3, lastSuccessAt } };
    const notified = {
      ...cursor,
      health: { ...cursor.health, staleNotifiedAt: new Date(NOW).toISOString() },
    };
    expect(staleEvent(club, cursor, NOW, 30 * MINUTE)?.detail).toMatchObject({
      staleSource: 'visits',
      ageSeconds: 2400,
    });
    expect(staleEvent(club, cursor, NOW, 60 * MINUTE)).toBeUndefined();
    expect(staleEvent(club, notified, NOW, 30 * MINUTE)).toBeUndefined();
  });

  it('takes a notice at the instant of the last success for the episode before it', () => {
    // A poll announced the previous episode on its start, then the source succeeded at that same
    // instant (a clock that did not move); 40 minutes later it fails: a new episode (chaos seed 8).
    const lastSuccessAt = new Date(NOW - 40 * MINUTE).toISOString();
    const cursor = {
      ...newCursor('club-1', 'visits'),
      health: { consecutiveFailures: 1, lastSuccessAt, staleNotifiedAt: lastSuccessAt },
    };
    expect(staleEvent(club, cursor, NOW, 30 * MINUTE)?.detail).toMatchObject({ lastSuccessAt });
  });
});
