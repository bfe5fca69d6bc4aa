/**
 * A club's lifecycle evaluation inside its poll (docs/lifecycle.md, "State and schedule"): once in
 * each of the club's hours (UTC hours shifted by its slot's minute, `lifecycleSlot` below), in the
 * first poll of the hour that gets to it, after the sources. It gathers what the
 * bridge keeps (snapshots, the seen set's visits and payments), evaluates the rules, publishes the
 * facts' events, then keeps the document; the session records the hour. No API request.
 *
 * The club's first evaluation reads the visit history first (visit-history.ts: the one read of the
 * API the lifecycle makes, once).
 *
 * A crash or a failure anywhere before the hour is recorded leaves the hour open: the next poll
 * evaluates again and finds the same facts with the same eventIds (the facts are kept before their
 * events are published). An evaluation that fails is logged, reported (the poll's metrics count it:
 * LifecycleFailures) and noted on the club state item with since when and why (`status`,
 * `explain`); it never fails the poll. A second failure in a row waits for the next hour.
 *
 * The slot spreads a fleet that starts together: each club evaluates at a fixed minute of the hour
 * and rebases in one of 12 hours, drawn from its id (one of 720), instead of every club at :00 (~18
 * strongly consistent read units a club in that minute, ~320 at a common rebase hour).
 */

import type { ClubConfig } from '../clubs/club-config';
import { clubSlot } from '../common/club-shard';
import { logger } from '../common/logger';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../common/time-units';
import { validateEvent } from '../events/catalog';
import type { EventSink } from '../events/event-sink';
import type { GymApiClient } from '../gym-api';
import { enabledSources, SOURCES } from '../sources';
import { tailLookbackFor } from '../sources/source';
import { FAILURE_MAX_CHARS, type LifecycleNotes } from '../state/lifecycle-notes';
import type { ClubSession } from '../state/state-store';
import type { Cursor, SourceName } from '../state/store';
import { evaluateLifecycle, type LifecycleFact } from './evaluate';
import { publishFacts } from './lifecycle-events';
import {
  factChanges,
  gatherLifecycleInput,
  type LifecycleWindow,
  type SubjectReads,
} from './lifecycle-input';
import {
  type KeptLifecycle,
  keepLifecycle,
  MAX_DELTA_SIZE,
  readKeptLifecycle,
  UnreadableLifecycleBaseError,
} from './lifecycle-keep';
import { LIFECYCLE_DEFAULTS, type LifecycleSettings } from './rules';
import { clearVisitHistory, readVisitHistory, type VisitHistory, withHistory } from './visit-history';

export type { KeptLifecycle } from './lifecycle-keep';

export type LifecycleReport =
  | {
      readonly outcome: 'evaluated';
      readonly published: number;
      /** How long the evaluation took (reads, rules, publishing, the document), ms. */
      readonly ms: number;
      /** Everything (the first evaluation, a rebase) or the kept state and what was noted since. */
      readonly read: 'all' | 'noted';
      readonly nextAtMs?: number;
      /** API requests of the visit history a first evaluation read in this poll (none: absent). */
      readonly historyRequests?: number;
    }
  | { readonly outcome: 'waiting'; readonly reason: string; readonly historyRequests?: number }
  | {
      readonly outcome: 'failed';
      readonly error: string;
      /** When the club's evaluations began to fail (this one included), epoch ms. */
      readonly failingSinceMs?: number;
      /** Failed evaluations in a row, this one included. */
      readonly attempts?: number;
    };

/** The sources whose baselines an evaluation waits for, when the club polls them. */
export const LIFECYCLE_SOURCES: readonly SourceName[] = ['members', 'prospects', 'visits', 'paymentHistory'];

/** The club's lifecycle settings, or undefined when its lifecycle events are off. */
export function lifecycleSettingsOf(club: ClubConfig): LifecycleSettings | undefined {
  const config = club.lifecycle;
  if (config?.enabled === false) return undefined;
  return { ...LIFECYCLE_DEFAULTS, ...(config ? withoutEnabled(config) : {}) };
}

function withoutEnabled(config: NonNullable<ClubConfig['lifecycle']>): Partial<LifecycleSettings> {
  const { enabled: _enabled, ...settings } = config;
  return settings;
}

/** An evaluation reads everything and rewrites the base at least this often (the notes' safety net). */
export const REBASE_EVERY_MS = 12 * HOUR_MS;
const REBASE_HOURS = REBASE_EVERY_MS / HOUR_MS;
const MINUTES_AN_HOUR = 60;
/** Names the lifecycle's slot among a club's slots (club-shard.ts). */
const LIFECYCLE_SALT = 0x6c696665;

export interface LifecycleSlot {
  /** How far past each UTC hour the club's evaluation hour starts, ms (a whole minute, 0..59). */
  readonly offsetMs: number;
  /** The evaluation hours (epoch hour mod 12) in which the club rebases. */
  readonly rebaseHour: number;
}

export function lifecycleSlot(clubId: string): LifecycleSlot {
  const slot = clubSlot(clubId, MINUTES_AN_HOUR * REBASE_HOURS, LIFECYCLE_SALT);
  return { offsetMs: (slot % MINUTES_AN_HOUR) * MINUTE_MS, rebaseHour: Math.floor(slot / MINUTES_AN_HOUR) };
}

/** The club's evaluation hour at an instant (an epoch hour number, shifted by its slot's offset). */
export function evaluationHourOf(clubId: string, ms: number): number {
  return Math.floor((ms - lifecycleSlot(clubId).offsetMs) / HOUR_MS);
}

/** When the club's evaluation hour `hour` starts (epoch ms). */
export function evaluationHourStartMs(clubId: string, hour: number): number {
  return hour * HOUR_MS + lifecycleSlot(clubId).offsetMs;
}

/**
 * Whether an evaluation in `hour` rebases a base written at `baseWrittenAtMs`: in the club's rebase
 * hours (every 12th evaluation hour) when the base was written before the hour began, so a base
 * written off the slot (by a first evaluation) moves onto it at the next slot hour; and whenever the
 * base is a whole period old (a slot hour without an evaluation: the club waited, or did not poll).
 */
export function rebaseDue(clubId: string, hour: number, baseWrittenAtMs: number, nowMs: number): boolean {
  if (nowMs - baseWrittenAtMs >= REBASE_EVERY_MS) return true;
  const fromSlot = hour - lifecycleSlot(clubId).rebaseHour;
  const inSlot = ((fromSlot % REBASE_HOURS) + REBASE_HOURS) % REBASE_HOURS === 0;
  return inSlot && baseWrittenAtMs < evaluationHourStartMs(clubId, hour);
}

/**
 * The club's evaluation hour of an instant: an evaluation is due when the poll's differs from the
 * last one's. Each club's hours start at its slot's minute (`lifecycleSlot`).
 */
export const hourOf = evaluationHourOf;

/** What this poll did with the club's sources: those it polled, and those of them that completed. */
export interface PolledSources {
  readonly polled: ReadonlySet<SourceName>;
  readonly completed: ReadonlySet<SourceName>;
}

/**
 * Why the club cannot be evaluated in this poll, or undefined when it can: the evaluation judges
 * only on sources that finished their baseline and are current: completed in this very poll, or,
 * when this poll did not include them (not due), whose last poll succeeded. So it never announces
 * a member inactive from visits it knows are behind.
 */
export function notReady(
  club: ClubConfig,
  cursors: readonly Cursor[],
  poll: PolledSources,
): string | undefined {
  const enabled = enabledSources(club);
  if (!enabled.includes('members') || !enabled.includes('visits'))
    return 'lifecycle events need the members and visits sources';
  const used = LIFECYCLE_SOURCES.filter((name) => enabled.includes(name));
  const cursorOf = (name: SourceName) => cursors.find((c) => c.source === name);
  const first = used.filter((name) => !cursorOf(name)?.baselineDone);
  if (first.length > 0) return `waiting for the first poll of ${first.join(', ')}`;
  const behind = used.filter((name) =>
    poll.polled.has(name) ? !poll.completed.has(name) : (cursorOf(name)?.health.consecutiveFailures ?? 0) > 0,
  );
  return behind.length > 0 ? `${behind.join(', ')} not current (failed or incomplete)` : undefined;
}

/** The seen set keeps a source's entries its re-read window and a day: never read past that. */
function windowMs(club: ClubConfig, name: SourceName): number {
  const source = SOURCES[name];
  return Math.max(tailLookbackFor(source, club), source.sweep?.windowMs ?? 0) + DAY_MS;
}

const isoAt = (ms: number) => new Date(ms).toISOString();

/**
 * The stretch of the seen set an evaluation reads. Reading everything: each source's re-read
 * window and a day (late records land anywhere in it), and back to the base. Otherwise: the visits
 * since the base was written (the kept last visits may be that old) or the earliest one filed since
 * the last evaluation, whichever is earlier; the payments filed since the last evaluation, if any.
 */
function stretchOf(
  club: ClubConfig,
  nowMs: number,
  kept: KeptLifecycle | undefined,
  notes: LifecycleNotes | undefined,
): LifecycleWindow {
  const floor = (name: SourceName, fromMs: number) =>
    isoAt(Math.max(fromMs, nowMs - windowMs(club, name) - DAY_MS));
  const sinceBase = (kept?.baseWrittenAtMs ?? nowMs) - 3 * HOUR_MS;
  if (!notes) {
    return {
      visitsFrom: floor('visits', Math.min(nowMs - windowMs(club, 'visits'), sinceBase)),
      paymentsFrom: floor('paymentHistory', Math.min(nowMs - windowMs(club, 'paymentHistory'), sinceBase)),
    };
  }
  const visitsFrom = floor('visits', Math.min(sinceBase, lateVisitsFrom(kept, notes) ?? sinceBase));
  return notes.paymentsFromMs === undefined
    ? { visitsFrom }
    : { visitsFrom, paymentsFrom: floor('paymentHistory', notes.paymentsFromMs) };
}

/**
 * The earliest visit noted since the base that lies before the visits re-read from it (a late one):
 * the delta keeps it, so every evaluation until the next rebase reads back to it (its fold may
 * change a last visit alone, which the delta does not keep).
 */
function lateVisitsFrom(kept: KeptLifecycle | undefined, notes: LifecycleNotes): number | undefined {
  const sinceBase = (kept?.baseWrittenAtMs ?? 0) - 3 * HOUR_MS;
  const earliest = Math.min(kept?.visitsFromMs ?? Infinity, notes.visitsFromMs ?? Infinity);
  return earliest < sinceBase ? earliest : undefined;
}

/** Why this evaluation reads everything and rewrites the base, or undefined when the notes suffice. */
function readsAll(
  kept: KeptLifecycle | undefined,
  notes: LifecycleNotes,
  at: { readonly clubId: string; readonly hour: number; readonly nowMs: number },
): string | undefined {
  if (!kept) return 'the first evaluation';
  if (!kept.view || kept.baseWrittenAtMs === undefined) return 'a document of an earlier release';
  if (notes.full) return 'the notes do not tell what changed';
  if (rebaseDue(at.clubId, at.hour, kept.baseWrittenAtMs, at.nowMs)) return 'the base is due';
  if ((kept.stored.base.pending ?? []).length > 0) return 'the base holds pending events';
  if (kept.deltaSize > MAX_DELTA_SIZE) return 'the delta outgrew its bound';
  if (kept.deltaUnreadable) return 'the delta could not be read';
  return undefined;
}

export interface LifecycleRunDeps {
  /** The poll's session (its item writes fenced by the lease). */
  readonly store: ClubSession;
  readonly sink: EventSink;
  readonly session: Pick<
    ClubSession,
    'lifecycleHour' | 'markLifecycleHour' | 'lifecycleNotes' | 'clearLifecycleNotes' | 'noteLifecycle'
  >;
  readonly nowMs: number;
  /** What this poll did with the club's sources. */
  readonly poll: PolledSources;
  /** The poll's API client and deadline: a first evaluation reads the visit history with them. */
  readonly api: { readonly client: Pick<GymApiClient, 'pages'>; readonly deadlineMs: number };
}

/** Evaluates the club's lifecycle if this hour has not; undefined when it is off or not due. */
export async function runClubLifecycle(
  deps: LifecycleRunDeps,
  club: ClubConfig,
  cursors: readonly Cursor[],
): Promise<LifecycleReport | undefined> {
  const settings = lifecycleSettingsOf(club);
  const hour = hourOf(club.clubId, deps.nowMs);
  if (!settings || deps.session.lifecycleHour() === hour) return undefined;
  const waiting =
    notReady(club, cursors, deps.poll) ?? retryLater(club.clubId, deps.session.lifecycleNotes(), hour);
  if (waiting) return { outcome: 'waiting', reason: waiting };
  try {
    return await evaluateClub(deps, club, settings, hour);
  } catch (err) {
    const error = (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(
      0,
      FAILURE_MAX_CHARS,
    );
    const failed = { sinceMs: deps.nowMs, lastMs: deps.nowMs, attempts: 1, error };
    deps.session.noteLifecycle({ failed });
    const noted = deps.session.lifecycleNotes().failed ?? failed;
    logger.error('lifecycle evaluation failed; the next poll tries again', {
      clubId: club.clubId,
      error,
      failingSince: new Date(noted.sinceMs).toISOString(),
      attempts: noted.attempts,
    });
    return { outcome: 'failed', error, failingSinceMs: noted.sinceMs, attempts: noted.attempts };
  }
}

/**
 * Why an evaluation that failed twice or more in a row waits: the next is tried in the club's next
 * hour, not at every poll (each would read as much again and fail the same way).
 */
function retryLater(clubId: string, notes: LifecycleNotes, hour: number): string | undefined {
  const failed = notes.failed;
  if (!failed || failed.attempts < 2 || hourOf(clubId, failed.lastMs) !== hour) return undefined;
  const since = new Date(failed.sinceMs).toISOString();
  return `failing since ${since} (${failed.attempts} attempts, ${failed.error}): tried again in the next hour`;
}

/**
 * The kept state, or (an unreadable base) none and the versions to replace it with: the evaluation
 * then starts over silently, as a first one (WARN with the reason), instead of failing every hour.
 */
async function readKeptOrStartOver(
  store: ClubSession,
  clubId: string,
  lastHour: number | undefined,
): Promise<{ kept?: KeptLifecycle; unreadable?: UnreadableLifecycleBaseError['versions'] }> {
  try {
    const kept = await readKeptLifecycle(store, clubId, lastHour);
    return kept ? { kept } : {};
  } catch (err) {
    if (!(err instanceof UnreadableLifecycleBaseError)) throw err;
    logger.warn(
      'the lifecycle base could not be read: this evaluation starts over silently, as a first one, and replaces it',
      { clubId, err },
    );
    return { unreadable: err.versions };
  }
}

/** The visit history of a first evaluation (none for a later one), or why it waits for the next poll. */
async function historyFor(
  deps: LifecycleRunDeps,
  club: ClubConfig,
  settings: LifecycleSettings,
  first: boolean,
): Promise<{ history?: VisitHistory; waiting?: string; requests: number }> {
  if (!first) return { requests: 0 };
  const read = await readVisitHistory(
    {
      client: deps.api.client as GymApiClient,
      store: deps.store,
      nowMs: deps.nowMs,
      deadlineMs: deps.api.deadlineMs,
    },
    club,
    settings.inactiveDays,
  );
  return read.done ? { history: read, requests: read.pages } : { waiting: read.reason, requests: read.pages };
}

async function evaluateClub(
  deps: LifecycleRunDeps,
  club: ClubConfig,
  settings: LifecycleSettings,
  hour: number,
): Promise<LifecycleReport> {
  const { store, nowMs } = deps;
  const started = performance.now();
  const { kept, unreadable } = await readKeptOrStartOver(store, club.clubId, deps.session.lifecycleHour());
  const { history, waiting, requests } = await historyFor(deps, club, settings, !kept);
  const historyRequests = requests > 0 ? { historyRequests: requests } : {};
  if (waiting) return { outcome: 'waiting', reason: waiting, ...historyRequests };
  const notes = deps.session.lifecycleNotes();
  const all = readsAll(kept, notes, { clubId: club.clubId, hour, nowMs }) !== undefined;
  if (kept?.deltaUnreadable)
    logger.warn('the lifecycle delta could not be read: ignored, this evaluation reads everything', {
      clubId: club.clubId,
    });
  const subjects: SubjectReads =
    all || !kept?.view
      ? { full: true }
      : { full: false, view: kept.view, members: notes.members ?? [], prospects: notes.prospects ?? [] };
  const input = await gatherLifecycleInput(
    store,
    club,
    nowMs,
    subjects,
    stretchOf(club, nowMs, kept, all ? undefined : notes),
  );
  // Events an evaluation kept and may not have published (it stopped after keeping them): first.
  const ctx = { clubId: club.clubId, zone: club.timeZone, nowMs };
  if (kept) {
    const { events, facts, nowMs: factsNowMs } = kept.pending;
    if (events.length > 0) await deps.sink.publish(events.map((e) => validateEvent(e)));
    await publishFacts(deps.sink, { ...ctx, nowMs: factsNowMs }, facts as LifecycleFact[]);
  }
  const outcome = evaluateLifecycle({
    doc: kept,
    nowMs,
    zone: club.timeZone,
    settings,
    members: input.members,
    prospects: input.prospects,
    visits: withHistory(input.visits, history),
    payments: input.payments,
    changes: factChanges(kept?.view, input),
    ...(history ? { historyFrom: history.from } : {}),
  });
  const view = {
    members: Object.fromEntries(input.members),
    prospects: Object.fromEntries(input.prospects),
  };
  const keep = { store, clubId: club.clubId, zone: club.timeZone, nowMs, hour, sink: deps.sink };
  const late = all ? undefined : lateVisitsFrom(kept, notes);
  const next = { life: outcome.doc, view, ...(late === undefined ? {} : { visitsFromMs: late }) };
  await keepLifecycle(keep, kept, next, outcome.facts, all, unreadable);
  if (history) await clearVisitHistory(store, history.storedVersion);
  deps.session.markLifecycleHour(hour);
  deps.session.clearLifecycleNotes();
  const report = {
    outcome: 'evaluated',
    published: outcome.facts.length,
    ms: performance.now() - started,
    read: all ? 'all' : 'noted',
    ...historyRequests,
  } as const;
  return outcome.nextAtMs === undefined ? report : { ...report, nextAtMs: outcome.nextAtMs };
}
