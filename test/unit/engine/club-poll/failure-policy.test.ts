/** The failure policy: kinds by error class, what is retried, pauses, back-off, and the one pause rule. */
import { describe, expect, it } from 'vitest';
import {
  activePause,
  failureBackoffMs,
  failureKind,
  isPauseKind,
  isRetryable,
  MAX_FAILURE_BACKOFF_MS,
  MAX_RETRY_AFTER_MS,
  pauseEndMs,
  pauseMs,
  unavailability,
} from '../../../../lambdas/engine/club-poll/failure-policy';
import { scheduleClub } from '../../../../lambdas/engine/schedule/scheduling';
import { PublishError } from '../../../../lambdas/events/event-sink';
import {
  AuthError,
  BadRequestError,
  EndpointUnavailableError,
  InvalidResponseError,
  QuotaExceededError,
  UnavailableError,
} from '../../../../lambdas/gym-api/errors';
import {
  ConcurrentModificationError,
  type Cursor,
  newCursor,
  StoreError,
} from '../../../../lambdas/state/store';

const MINUTE = 60_000;
const NOW = Date.parse('2026-04-16T00:00:00.000Z');
const op = { operation: 'GetVisits' };

/** A cursor of club-1 paused until `untilMs` by a failure of `kind`. */
function paused(source: Cursor['source'], untilMs: number, kind: 'auth' | 'quota', failures = 1): Cursor {
  return {
    ...newCursor('club-1', source),
    health: {
      consecutiveFailures: failures,
      lastPollAt: new Date(NOW - MINUTE).toISOString(),
      pausedUntil: new Date(untilMs).toISOString(),
      lastError: { kind, message: `${kind} refused on ${source}`, at: new Date(NOW - MINUTE).toISOString() },
    },
  };
}

describe('failureKind', () => {
  it.each([
    ['a rejected credential', new AuthError('HTTP 401', { ...op, reason: 'apiKey' }), 'auth'],
    ['a spent quota', new QuotaExceededError('HTTP 429', op), 'quota'],
    ['a lost versioned write', new ConcurrentModificationError('club-1', 'visits', 3), 'conflict'],
    ['a 400', new BadRequestError('HTTP 400', op), 'bad-request'],
    ['an unusable response', new InvalidResponseError('not JSON', op), 'invalid-response'],
    ['a 5xx', new UnavailableError('HTTP 503', op), 'unavailable'],
    ['a publish failure', new PublishError('down', { failedEventIds: ['e1'], attempts: 3 }), 'publish'],
    ['a store failure', new StoreError('throttled'), 'store'],
    ['anything else', new TypeError('bug'), 'internal'],
  ])('classifies %s by its class', (_, err, kind) => {
    expect(failureKind(err)).toBe(kind);
  });

  it('matches the class, not the name: a look-alike is internal', () => {
    const lookAlike = Object.assign(new Error('EventBridge down'), { name: 'PublishError' });
    expect(failureKind(lookAlike)).toBe('internal');
  });

  it('retries what a later attempt can fix, never a pause or a bad request', () => {
    expect(
      ['unavailable', 'publish', 'store', 'conflict', 'internal'].every((k) => isRetryable(k as never)),
    ).toBe(true);
    expect(['auth', 'quota', 'bad-request', 'invalid-response'].some((k) => isRetryable(k as never))).toBe(
      false,
    );
    expect(isPauseKind('auth') && isPauseKind('quota')).toBe(true);
    expect(isPauseKind('unavailable')).toBe(false);
  });
});

describe('pauses and back-off', () => {
  it('pauses 5 minutes doubling, capped per kind, or longer when the API says when to come back', () => {
    expect(pauseMs('auth', 1)).toBe(5 * MINUTE);
    expect(pauseMs('auth', 3)).toBe(20 * MINUTE);
    expect(pauseMs('auth', 20)).toBe(6 * 60 * MINUTE);
    expect(pauseMs('quota', 20)).toBe(60 * MINUTE);
    expect(pauseEndMs('quota', 1, NOW, 3 * 24 * 60 * MINUTE)).toBe(NOW + 3 * 24 * 60 * MINUTE);
    expect(pauseEndMs('quota', 1, NOW, 365 * 24 * 60 * MINUTE)).toBe(NOW + MAX_RETRY_AFTER_MS);
    expect(pauseEndMs('auth', 1, NOW)).toBe(NOW + 5 * MINUTE);
  });

  it('backs a failing source off from its interval, capped at 30 minutes', () => {
    const cadence = { intervalMs: MINUTE };
    expect(failureBackoffMs(cadence, 0)).toBe(0);
    expect(failureBackoffMs(cadence, 2)).toBe(4 * MINUTE);
    expect(failureBackoffMs(cadence, 50)).toBe(MAX_FAILURE_BACKOFF_MS);
  });

  it('calls an endpoint missing for any source, and a 400 or an unusable page only for an experimental one', () => {
    const notFound = new EndpointUnavailableError('HTTP 404', { ...op, status: 404, reason: 'not-found' });
    const badRequest = new BadRequestError('HTTP 400', { ...op, status: 400 });
    expect(unavailability(notFound, {})).toEqual({ kind: 'not-found', status: 404 });
    expect(unavailability(badRequest, {})).toBeUndefined();
    expect(unavailability(badRequest, { experimental: true })).toEqual({ kind: 'bad-request', status: 400 });
    expect(unavailability(new InvalidResponseError('html', op), { experimental: true })).toEqual({
      kind: 'unusable-response',
    });
  });
});

describe('the one pause rule', () => {
  it('takes the pause that ends last, and the engine and the scheduler agree on it', () => {
    // Prepare: two sources paused, the later pause on the second cursor; one pause already over.
    const cursors = [
      paused('members', NOW + 10 * MINUTE, 'auth'),
      paused('visits', NOW + 60 * MINUTE, 'quota', 2),
      paused('prospects', NOW - MINUTE, 'auth'),
    ];
    // Act
    const pause = activePause(cursors, NOW);
    const schedule = scheduleClub({ plan: 'basic', cursors, quotaUsed: 0, nowMs: NOW });
    // Assess
    expect(pause).toMatchObject({
      until: new Date(NOW + 60 * MINUTE).toISOString(),
      kind: 'quota',
      source: 'visits',
      consecutiveFailures: 2,
      reason: 'quota refused on visits',
    });
    expect(schedule.pausedUntilMs).toBe(Date.parse(pause!.until));
    expect(schedule.sources.every((s) => s.reason === 'paused' && s.dueAtMs === NOW + 60 * MINUTE)).toBe(
      true,
    );
  });

  it('is no pause once every pause is over, for either of them', () => {
    const cursors = [paused('members', NOW - MINUTE, 'auth'), paused('visits', NOW, 'auth')];
    expect(activePause(cursors, NOW)).toBeUndefined();
    expect(scheduleClub({ plan: 'basic', cursors, quotaUsed: 0, nowMs: NOW }).pausedUntilMs).toBeUndefined();
  });
});
