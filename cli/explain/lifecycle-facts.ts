/**
 * `explain`'s lifecycle part (docs/lifecycle.md): what the lifecycle state (base and delta) keeps
 * of a member or prospect, each fact it records with what became of its event (published, with its
 * eventId; passed silently by the first evaluation; pending; or, in a base of an earlier release
 * for a fact due before tracking began, not known), when the club was
 * last evaluated, since when and why its evaluations fail (if they do), and the next moment a
 * time-based rule can fire for the subject as things stand.
 * Read from the state table; the words are in ./subject-words.ts.
 */

import type { ClubConfig } from '../../lambdas/clubs/club-config';
import { redactKnownSecrets } from '../../lambdas/common/redact';
import { HOUR_MS } from '../../lambdas/common/time-units';
import { DETAIL_TYPES } from '../../lambdas/events/catalog';
import { makeEventId } from '../../lambdas/events/event-id';
import {
  evaluationHourStartMs,
  hourOf,
  type KeptLifecycle,
  lifecycleSettingsOf,
} from '../../lambdas/lifecycle/club-lifecycle';
import { type LifecycleFact, seenFromOf } from '../../lambdas/lifecycle/evaluate';
import { lifecycleEvent } from '../../lambdas/lifecycle/lifecycle-events';
import { memberFacts, prospectFacts } from '../../lambdas/lifecycle/lifecycle-input';
import { readKeptLifecycle, UnreadableLifecycleBaseError } from '../../lambdas/lifecycle/lifecycle-keep';
import {
  addLocalDays,
  evaluateMember,
  evaluateProspect,
  instantOf,
  type Lapse,
  type LifecycleSettings,
} from '../../lambdas/lifecycle/rules';
import type { StateStore } from '../../lambdas/state/state-store';
import type { SubjectRef } from './subject-ref';

/**
 * What the state says of a recorded fact's event: `published` (its eventId given), `silent` (the
 * club's first evaluation passed it silently: no event), `pending` (recorded as announced by an
 * evaluation whose hour the club state does not record as evaluated: the next evaluation publishes
 * it, under the same eventId) or `unknown` (it came due before tracking began, and the base was
 * written before the bridge kept which facts its first evaluation passed silently).
 */
export type LifecycleAnnouncement = 'published' | 'silent' | 'pending' | 'unknown';

/** A fact the document records, with its eventId only when the state shows it was published. */
export interface LifecycleRecord {
  readonly detailType: string;
  readonly about: string;
  readonly announcement: LifecycleAnnouncement;
  readonly eventId: string | null;
}

export interface LifecycleFacts {
  readonly enabled: boolean;
  readonly settings: LifecycleSettings | null;
  /** Local time tracking began (the first, silent evaluation); null before it. */
  readonly trackedSince: string | null;
  /** When the document was last written, UTC. */
  readonly keptAt: string | null;
  readonly lastEvaluation: string | null;
  readonly nextEvaluation: string | null;
  /** The club's evaluations fail: since when (UTC), how often in a row, and why the latest did. */
  readonly failing: { readonly since: string; readonly attempts: number; readonly reason: string } | null;
  /** The base cannot be read by this release (a later release's, a damaged item): the next evaluation starts over. */
  readonly baseUnreadable: boolean;
  /** Whether the base says which facts the first evaluation passed silently (false: an earlier release's). */
  readonly baselineKept: boolean;
  /** What the document keeps of the subject (absent: nothing yet). */
  readonly kept: Record<string, unknown> | null;
  readonly recorded: LifecycleRecord[];
  /** The next moment a time-based rule can fire for the subject, as things stand (UTC). */
  readonly nextDueAt: string | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A recorded fact: its mark (as the document writes it), what it is about, its eventId. */
interface Mark {
  readonly detailType: string;
  readonly about: string;
  readonly mark: string;
  readonly eventId: string;
  /** A lapse says itself whether it was announced. */
  readonly lapseAnnounced?: boolean;
}

function marksOf(clubId: string, subject: SubjectRef, kept: Record<string, unknown>): Mark[] {
  const id = (type: string, ...parts: string[]) =>
    makeEventId(clubId, 'lifecycle', type, subject.id, ...parts);
  const T = DETAIL_TYPES;
  if (subject.kind === 'prospect')
    return ((kept.ends as string[] | undefined) ?? []).map((end) => ({
      detailType: T.ProspectTrialEnding,
      about: `trial end ${end}`,
      mark: end,
      eventId: id(T.ProspectTrialEnding, 'trialEnding', end),
    }));
  const life = kept as { firstVisitOf?: string; lapse?: Lapse; expiring?: string[] };
  const out: Mark[] = [];
  if (life.firstVisitOf)
    out.push({
      detailType: T.MemberFirstVisit,
      about: `membership start ${life.firstVisitOf}`,
      mark: life.firstVisitOf,
      eventId: id(T.MemberFirstVisit, 'firstVisit', life.firstVisitOf),
    });
  if (life.lapse)
    out.push({
      detailType: T.MemberInactive,
      about: `lapse from ${life.lapse.from}`,
      mark: life.lapse.from,
      eventId: id(T.MemberInactive, 'inactive', life.lapse.from),
      lapseAnnounced: life.lapse.announced === true,
    });
  for (const mark of life.expiring ?? []) {
    const [kind, date] = mark.split('|') as [string, string];
    out.push({
      detailType: T.MembershipExpiring,
      about: `${kind} ${date}`,
      mark,
      eventId: id(T.MembershipExpiring, 'expiring', kind, date),
    });
  }
  return out;
}

/**
 * Without the base's silent marks (a base of an earlier release): a fact whose moment (rules.ts)
 * came after tracking began was surely announced; one before may have been passed silently by the
 * first evaluation or announced for a late qualifier: not known.
 */
function announcedBeforeMarks(
  m: Mark,
  doc: KeptLifecycle,
  settings: LifecycleSettings,
  zone: string,
): boolean {
  const date = /(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})/.exec(m.about)?.[1];
  if (!date) return false;
  // Kept for a membership started once tracking began; one started before may be either.
  if (m.detailType === DETAIL_TYPES.MemberFirstVisit) return date > doc.trackedSince;
  const momentMs =
    m.detailType === DETAIL_TYPES.MembershipExpiring
      ? instantOf(addLocalDays(date, -settings.expiringDays), zone)
      : instantOf(date, zone) - settings.trialEndingHours * HOUR_MS;
  return momentMs > instantOf(doc.trackedSince, zone);
}

/** The eventIds of the subject's facts the document keeps as announced and not yet surely published. */
function pendingIds(club: ClubConfig, subject: SubjectRef, doc: KeptLifecycle): Set<string> {
  const { events, facts, nowMs } = doc.pending;
  const ctx = { clubId: club.clubId, zone: club.timeZone, nowMs };
  const whose = (f: LifecycleFact) => ('member' in f ? ['member', f.member] : ['prospect', f.prospect]);
  const theirs = (facts as LifecycleFact[]).filter((f) => {
    const [kind, id] = whose(f);
    return kind === subject.kind && id === subject.id;
  });
  return new Set([
    ...(events as { detail?: { eventId?: unknown } }[]).map((e) => String(e.detail?.eventId)),
    ...theirs.map((f) => lifecycleEvent(ctx, f).detail.eventId),
  ]);
}

/** Each recorded fact of the subject, with what the state says of its event. */
function recordedFacts(
  club: ClubConfig,
  subject: SubjectRef,
  kept: Record<string, unknown>,
  doc: KeptLifecycle,
  settings: LifecycleSettings | null,
): LifecycleRecord[] {
  const pending = pendingIds(club, subject, doc);
  const silent = doc.silent && (subject.kind === 'member' ? doc.silent.members : doc.silent.prospects);
  return marksOf(club.clubId, subject, kept).map(({ detailType, about, mark, eventId, lapseAnnounced }) => {
    const m = { detailType, about, mark, eventId };
    const announced =
      lapseAnnounced ??
      (silent
        ? !(silent[subject.id] ?? []).includes(mark)
        : settings && announcedBeforeMarks(m, doc, settings, club.timeZone)
          ? true
          : undefined);
    const announcement: LifecycleAnnouncement =
      announced === undefined
        ? 'unknown'
        : !announced
          ? 'silent'
          : pending.has(eventId)
            ? 'pending'
            : 'published';
    return { detailType, about, announcement, eventId: announcement === 'published' ? eventId : null };
  });
}

/** The subject's next time-based moment, from its snapshot's fields and what the document keeps. */
function nextDue(
  club: ClubConfig,
  subject: SubjectRef,
  fields: Record<string, unknown> | undefined,
  doc: KeptLifecycle,
  settings: LifecycleSettings,
  nowMs: number,
): number | undefined {
  if (!fields) return undefined;
  if (subject.kind === 'prospect') {
    const ends = doc.prospects[subject.id] ?? [];
    return evaluateProspect(prospectFacts(fields), ends, nowMs, club.timeZone, settings).nextAtMs;
  }
  const life = doc.members[subject.id] ?? {};
  return evaluateMember(memberFacts(fields), life, seenFromOf(doc), nowMs, club.timeZone, settings).nextAtMs;
}

/** The words of a club whose lifecycle evaluations fail (none when they do not). */
export function failingWords(l: Pick<LifecycleFacts, 'failing'>): string[] {
  const f = l.failing;
  if (!f) return [];
  return [
    `The club's lifecycle evaluations fail since ${f.since} (${f.attempts} in a row): ${f.reason}. Its lifecycle events are published once one succeeds (docs/deploy.md#lifecyclefailing).`,
  ];
}

/** The lifecycle facts of a member or prospect (null for a payment). */
export async function lifecycleFacts(
  store: StateStore,
  club: ClubConfig,
  subject: SubjectRef,
  snapshotFields: Record<string, unknown> | undefined,
  nowMs: number,
): Promise<LifecycleFacts | null> {
  if (subject.kind === 'payment') return null;
  const settings = lifecycleSettingsOf(club) ?? null;
  const month = iso(nowMs).slice(0, 7);
  const states = await store.readClubStates([club.clubId], month);
  const hour = states.get(club.clubId)?.lifecycleHour;
  // The hour the club state records as evaluated tells which of the delta's facts were published.
  const found = await readKeptLifecycle(store.view(club.clubId), club.clubId, hour).catch((err: unknown) => {
    if (err instanceof UnreadableLifecycleBaseError) return 'unreadable' as const;
    throw err;
  });
  const doc = found === 'unreadable' ? undefined : found;
  const failed = states.get(club.clubId)?.lifecycleFailure;
  const kept = (subject.kind === 'member' ? doc?.members[subject.id] : doc?.prospects[subject.id]) ?? null;
  const keptView =
    subject.kind === 'prospect' && kept ? { ends: kept } : (kept as Record<string, unknown> | null);
  const due = doc && settings ? nextDue(club, subject, snapshotFields, doc, settings, nowMs) : undefined;
  return {
    enabled: settings !== null,
    settings,
    trackedSince: doc?.trackedSince ?? null,
    keptAt: doc?.writtenAtMs === undefined ? null : iso(doc.writtenAtMs),
    lastEvaluation: hour === undefined ? null : iso(evaluationHourStartMs(club.clubId, hour)),
    nextEvaluation:
      hour === undefined
        ? null
        : iso(evaluationHourStartMs(club.clubId, Math.max(hourOf(club.clubId, nowMs), hour + 1))),
    failing: failed
      ? { since: iso(failed.sinceMs), attempts: failed.attempts, reason: redactKnownSecrets(failed.error) }
      : null,
    baseUnreadable: found === 'unreadable',
    baselineKept: doc?.silent !== undefined,
    kept: keptView,
    recorded: keptView && doc ? recordedFacts(club, subject, keptView, doc, settings) : [],
    nextDueAt: due === undefined ? null : iso(due),
  };
}
