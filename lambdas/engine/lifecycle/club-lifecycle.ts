/**
 * A club's lifecycle evaluation inside its poll (docs/lifecycle.md, "State and schedule"): once per
 * UTC hour, in the first poll of the hour that gets to it, after the sources. It gathers what the
 * bridge keeps (snapshots, the seen set's visits and payments), evaluates the rules, publishes the
 * facts' events, then keeps the document; the session records the hour. No API request.
 *
 * A crash or a failure anywhere before the hour is recorded leaves the hour open: the next poll
 * evaluates again and finds the same facts with the same eventIds (the document is written after
 * the events are published). An evaluation that fails is logged and reported, never fails the poll.
 */
import type { ClubConfig } from '../../clubs/club-config';
import { logger } from '../../common/logger';
import { validateEvent } from '../../events/catalog';
import type { EventSink } from '../../events/event-sink';
import { enabledSources, SOURCES } from '../../sources';
import { evaluateLifecycle, type LifecycleDoc } from '../../sources/lifecycle/evaluate';
import { HOUR_MS } from '../../sources/lifecycle/local-time';
import { LIFECYCLE_DEFAULTS, type LifecycleSettings } from '../../sources/lifecycle/rules';
import { DAY_MS, tailLookbackFor } from '../../sources/source';
import type { ClubSession, Cursor, SourceName, StateStore } from '../../state/store';
import { clubContext } from '../club-poll/club-context';
import { lifecycleEvent } from './lifecycle-events';
import { gatherLifecycleInput } from './lifecycle-input';

/** What the engine keeps: the evaluation's document and when it was last written. */
export interface KeptLifecycle extends LifecycleDoc {
  /** When the document was last written (epoch ms): the visits read must reach back to it. */
  readonly writtenAtMs?: number;
  /** Events of facts the document records as announced, kept until they are surely published. */
  readonly pending?: readonly unknown[];
}

export type LifecycleReport =
  | {
      readonly outcome: 'evaluated';
      readonly published: number;
      /** How long the evaluation took (reads, rules, publishing, the document), ms. */
      readonly ms: number;
      readonly nextAtMs?: number;
    }
  | { readonly outcome: 'waiting'; readonly reason: string }
  | { readonly outcome: 'failed'; readonly error: string };

/** The sources whose baselines an evaluation waits for, when the club polls them. */
export const LIFECYCLE_SOURCES: readonly SourceName[] = ['members', 'prospects', 'visits', 'paymentHistory'];
/** The document is written at least this often, so that the visits it did not keep are still in the window. */
export const KEEP_EVERY_MS = 12 * HOUR_MS;

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

/** The epoch hour of an instant: an evaluation is due when the poll's hour differs from the last one's. */
export const hourOf = (ms: number): number => Math.floor(ms / HOUR_MS);

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

/** How far back a source's seen entries are read: its re-read window and a day, or to the last write. */
function readFrom(
  club: ClubConfig,
  name: SourceName,
  nowMs: number,
  kept: KeptLifecycle | undefined,
): string {
  const source = SOURCES[name];
  const window = Math.max(tailLookbackFor(source, clubContext(club)), source.sweep?.windowMs ?? 0) + DAY_MS;
  const fromMs = Math.min(nowMs - window, (kept?.writtenAtMs ?? nowMs) - 3 * HOUR_MS);
  // Never past what the seen set keeps (the window and 2 days after the entry was filed).
  return new Date(Math.max(fromMs, nowMs - window - DAY_MS)).toISOString();
}

/** The document without the members' last visits: what only a new fact or mark changes. */
function marks(doc: LifecycleDoc): string {
  const members = Object.entries(doc.members).map(([n, { lastVisitAt: _v, ...rest }]) => [n, rest]);
  return JSON.stringify([members, doc.prospects, doc.trackedSince]);
}

function keptDoc(stored: unknown): KeptLifecycle | undefined {
  if (stored === undefined) return undefined;
  const doc = stored as Partial<KeptLifecycle> | null;
  if (doc?.version !== 1 || typeof doc.members !== 'object' || typeof doc.prospects !== 'object')
    throw new Error('the stored lifecycle document is not a version 1 document');
  return doc as KeptLifecycle;
}

export interface LifecycleRunDeps {
  /** The poll's store (fenced by its session). */
  readonly store: StateStore;
  readonly sink: EventSink;
  readonly session: Pick<ClubSession, 'lifecycleHour' | 'markLifecycleHour'>;
  readonly nowMs: number;
  /** What this poll did with the club's sources. */
  readonly poll: PolledSources;
}

/** Evaluates the club's lifecycle if this hour has not; undefined when it is off or not due. */
export async function runClubLifecycle(
  deps: LifecycleRunDeps,
  club: ClubConfig,
  cursors: readonly Cursor[],
): Promise<LifecycleReport | undefined> {
  const settings = lifecycleSettingsOf(club);
  const hour = hourOf(deps.nowMs);
  if (!settings || deps.session.lifecycleHour() === hour) return undefined;
  const waiting = notReady(club, cursors, deps.poll);
  if (waiting) return { outcome: 'waiting', reason: waiting };
  try {
    return await evaluateClub(deps, club, settings, hour);
  } catch (err) {
    const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    logger.error('lifecycle evaluation failed; the next poll tries again', { clubId: club.clubId, error });
    return { outcome: 'failed', error };
  }
}

async function evaluateClub(
  deps: LifecycleRunDeps,
  club: ClubConfig,
  settings: LifecycleSettings,
  hour: number,
): Promise<LifecycleReport> {
  const { store, nowMs } = deps;
  const started = performance.now();
  const stored = await store.getLifecycle(club.clubId);
  const kept = keptDoc(stored?.doc);
  const input = await gatherLifecycleInput(store, club, nowMs, {
    visitsFrom: readFrom(club, 'visits', nowMs, kept),
    paymentsFrom: readFrom(club, 'paymentHistory', nowMs, kept),
  });
  // Events an evaluation kept and may not have published (it stopped after keeping them): first.
  const pending = (kept?.pending ?? []).map((e) => validateEvent(e));
  if (pending.length > 0) await deps.sink.publish(pending);
  const outcome = evaluateLifecycle({ doc: kept, nowMs, zone: club.timeZone, settings, ...input });
  const ctx = { clubId: club.clubId, zone: club.timeZone, nowMs };
  const events = outcome.facts.map((fact) => lifecycleEvent(ctx, fact));
  const next: KeptLifecycle = { ...outcome.doc, writtenAtMs: nowMs };
  let version = stored?.version ?? 0;
  if (events.length > 0) {
    // Kept with the facts as announced before they are published, the events with them: a stop
    // after this write publishes them again next time (same ids), new data or not.
    version = await store.putLifecycle(club.clubId, { ...next, pending: events }, version);
    await deps.sink.publish(events);
    await store.putLifecycle(club.clubId, next, version);
  } else if (
    !kept ||
    pending.length > 0 ||
    nowMs - (kept.writtenAtMs ?? 0) >= KEEP_EVERY_MS ||
    marks(kept) !== marks(next)
  ) {
    await store.putLifecycle(club.clubId, next, version);
  }
  deps.session.markLifecycleHour(hour);
  const report = { outcome: 'evaluated', published: events.length, ms: performance.now() - started } as const;
  return outcome.nextAtMs === undefined ? report : { ...report, nextAtMs: outcome.nextAtMs };
}
