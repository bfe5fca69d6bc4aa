/**
 * The operational verdict itself (operational-check.ts): a checker that cannot fail proves nothing,
 * so each rule is shown to catch what it is there for (an announcement a committed poll made and
 * nobody delivered, a refusal, an unavailable mark or a stale source never announced, an event no
 * committed condition explains), and to let pass what the bridge may do (an announcement delivered
 * by a later poll, one made by a poll that lost its state).
 */
import { describe, expect, it } from 'vitest';
import { cursorAfterFailure, cursorMarkedUnavailable } from '../../lambdas/engine/cursor/cursor-life';
import type { BridgeEvent } from '../../lambdas/events/catalog';
import { pauseEvent, staleEvent, unavailableEvent } from '../../lambdas/sources/operational-events';
import { type Cursor, newCursor } from '../../lambdas/state/store';
import { checkOperational, type OperationalRun } from './operational-check';

const MINUTE = 60_000;
const T0 = Date.parse('2026-05-01T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const club = { clubId: 'club-1', plan: 'basic' as const, piiPolicy: 'minimal' as const };
const STALE = 30 * MINUTE;

const succeeded = (source: Cursor['source'], atMs: number): Cursor => ({
  ...newCursor('club-1', source),
  health: { consecutiveFailures: 0, lastSuccessAt: iso(atMs) },
});
/** members succeeded at T0, then refused (401) at T0 + 10 min. */
const refused = cursorAfterFailure(
  succeeded('members', T0),
  { kind: 'auth', message: '401' },
  T0 + 10 * MINUTE,
);
const rejected = pauseEvent(
  club,
  'auth',
  new Error('401'),
  1,
  refused.health.pausedUntil!,
  T0 + 10 * MINUTE,
  0,
);
/** visits succeeded at T0, failed at T0 + 40 min. */
const failing = cursorAfterFailure(
  succeeded('visits', T0),
  { kind: 'unavailable', message: '503' },
  T0 + 40 * MINUTE,
);
const stale = staleEvent(club, failing, T0 + 40 * MINUTE, STALE)!;
/** classAttendance found missing at T0 + 5 min. */
const missingEndpoint = cursorMarkedUnavailable(
  newCursor('club-1', 'classAttendance'),
  { kind: 'not-found', status: 404 },
  'HTTP 404',
  T0 + 5 * MINUTE,
);
const unavailable = unavailableEvent(
  club,
  'classAttendance',
  missingEndpoint.health.unavailable!,
  true,
  T0 + 5 * MINUTE,
);

const run = (over: Partial<OperationalRun>): OperationalRun => ({
  delivered: [],
  committed: [[refused, failing, missingEndpoint]],
  processes: [],
  staleAfterMs: STALE,
  ...over,
});
const closedPoll = (...events: BridgeEvent[]) => ({
  closed: true,
  operational: events.map((event) => ({ event })),
});

describe('checkOperational', () => {
  it('passes when every committed condition was announced and every announcement delivered', () => {
    const result = checkOperational(
      run({
        delivered: [rejected, stale, unavailable, rejected],
        processes: [closedPoll(rejected, stale, unavailable)],
      }),
    );
    expect(result).toMatchObject({ checked: 3, required: 6, missing: [], spurious: [] });
    expect(result.byType).toEqual({
      'Club Credentials Rejected': 1,
      'Club Data Stale': 1,
      'Club Source Unavailable': 1,
    });
  });

  it('reports each committed condition never announced', () => {
    const result = checkOperational(run({}));
    expect(result.missing).toEqual([
      expect.stringMatching(/^Club Source Unavailable: classAttendance unavailable since/),
      expect.stringMatching(/^Club Credentials Rejected: refusal members\|auth\|/),
      expect.stringMatching(/^Club Data Stale: visits failing 30\+ min after its success/),
    ]);
  });

  it('reports an announcement a committed poll made and nobody delivered, not one of a poll that lost its state', () => {
    const lost = pauseEvent(club, 'quota', new Error('429'), 1, iso(T0 + HOUR), T0 + 50 * MINUTE, 9);
    const committed = checkOperational(
      run({ delivered: [rejected, stale, unavailable], processes: [closedPoll(rejected, lost)] }),
    );
    const unrecorded = checkOperational(
      run({
        delivered: [rejected, stale, unavailable],
        processes: [closedPoll(rejected), { closed: false, operational: [{ event: lost }] }],
      }),
    );
    expect(committed.missing).toEqual([
      `Club Quota Low ${lost.detail.eventId}: announced by a poll that committed, never delivered`,
    ]);
    expect(unrecorded.missing).toEqual([]);
  });

  it('reports an operational event no committed condition explains, unless a poll that lost its state sent it', () => {
    const madeUp = pauseEvent(club, 'quota', new Error('429'), 1, iso(T0 + HOUR), T0 + 50 * MINUTE, 9);
    // A stale notice for a success no committed failure came after (and 15 minutes in).
    const early = staleEvent(club, succeeded('visits', T0 + 5 * MINUTE), T0 + 20 * MINUTE, 10 * MINUTE)!;
    const delivered = [rejected, stale, unavailable, madeUp, early];
    const result = checkOperational(run({ delivered }));
    const explained = checkOperational(
      run({ delivered, processes: [{ closed: false, operational: [{ event: madeUp }, { event: early }] }] }),
    );
    expect(result.spurious).toEqual([
      expect.stringMatching(new RegExp(`^Club Quota Low ${madeUp.detail.eventId}: no such condition`)),
      expect.stringMatching(new RegExp(`^Club Data Stale ${early.detail.eventId}: no such condition`)),
    ]);
    expect(explained.spurious).toEqual([]);
  });

  it("takes a refusal as announced by its episode's first refusal, not by one before the club's last success", () => {
    // Prepare: members refused again at T0 + 20 min (same episode); then visits succeeds at T0 + 30
    // min and members is refused at T0 + 35 min: a new episode, to be announced on its own.
    const again = cursorAfterFailure(refused, { kind: 'auth', message: '401' }, T0 + 20 * MINUTE);
    const later = cursorAfterFailure(again, { kind: 'auth', message: '401' }, T0 + 35 * MINUTE);
    const committed = [[refused], [again], [succeeded('visits', T0 + 30 * MINUTE), later]];
    // Act
    const firstOnly = checkOperational(run({ committed, delivered: [rejected] }));
    const second = pauseEvent(
      club,
      'auth',
      new Error('401'),
      3,
      later.health.pausedUntil!,
      T0 + 35 * MINUTE,
      0,
    );
    const both = checkOperational(run({ committed, delivered: [rejected, second] }));
    // Assess
    expect(firstOnly.missing).toEqual([
      expect.stringMatching(/refusal members\|auth\|2026-05-01T10:35:00.000Z/),
    ]);
    expect(both.missing).toEqual([]);
    expect(both.spurious).toEqual([]);
  });
  it('takes a success at the very instant of a refusal as maybe after it: the episode announced before may hold it', () => {
    // Prepare: members refused at T0 + 10 min (announced); at T0 + 20 min, in one poll, members is
    // refused again and visits succeeds: the poll's sources share its instant, in either order.
    const again = cursorAfterFailure(refused, { kind: 'auth', message: '401' }, T0 + 20 * MINUTE);
    const committed = [[refused], [succeeded('visits', T0 + 20 * MINUTE), again]];
    // Act
    const result = checkOperational(run({ committed, delivered: [rejected] }));
    const none = checkOperational(run({ committed, delivered: [] }));
    // Assess: the first announcement covers it; without any, both refusals are missing.
    expect(result.missing).toEqual([]);
    expect(result.spurious).toEqual([]);
    expect(none.missing).toEqual([
      expect.stringMatching(/refusal members\|auth\|2026-05-01T10:10:00.000Z/),
      expect.stringMatching(/refusal members\|auth\|2026-05-01T10:20:00.000Z/),
    ]);
  });
  it('keeps an episode across a success at the instant of one of its refusals, and ends it at a success strictly between', () => {
    // Prepare: members refused at T0 + 10 min (announced); at T0 + 20 min visits succeeds and members
    // is refused again, in one poll; members refused at T0 + 30 min. Then a second run where visits
    // succeeds at T0 + 25 min instead: the refusal at T0 + 30 min begins an episode of its own.
    const again = cursorAfterFailure(refused, { kind: 'auth', message: '401' }, T0 + 20 * MINUTE);
    const third = cursorAfterFailure(again, { kind: 'auth', message: '401' }, T0 + 30 * MINUTE);
    const tied = [[refused], [succeeded('visits', T0 + 20 * MINUTE), again], [third]];
    const between = [[refused], [again], [succeeded('visits', T0 + 25 * MINUTE), third]];
    // Act
    const same = checkOperational(run({ committed: tied, delivered: [rejected] }));
    const ended = checkOperational(run({ committed: between, delivered: [rejected] }));
    // Assess
    expect(same.missing).toEqual([]);
    expect(ended.missing).toEqual([expect.stringMatching(/refusal members\|auth\|2026-05-01T10:30:00.000Z/)]);
  });
});

const HOUR = 60 * MINUTE;
