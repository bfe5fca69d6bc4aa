/**
 * `explain`'s lifecycle part (docs/lifecycle.md): what the lifecycle state (base and delta) keeps
 * of a member or prospect, the eventIds of the facts it records as announced, when the club was
 * last evaluated, since when and why its evaluations fail (if they do), and the next moment a
 * time-based rule can fire for the subject as things stand.
 * Read from the state table; the words are in ./subject-words.ts.
 */
import type { ClubConfig } from '../../clubs/club-config';
import { redactKnownSecrets } from '../../common/redact';
import { hourOf, type KeptLifecycle, lifecycleSettingsOf } from '../../engine/lifecycle/club-lifecycle';
import { memberFacts, prospectFacts } from '../../engine/lifecycle/lifecycle-input';
import { readKeptLifecycle } from '../../engine/lifecycle/lifecycle-keep';
import { evaluationHourStartMs } from '../../engine/lifecycle/lifecycle-slot';
import { DETAIL_TYPES } from '../../events/catalog';
import { makeEventId } from '../../events/event-id';
import { seenFromOf } from '../../sources/lifecycle/evaluate';
import { evaluateMember, evaluateProspect, type LifecycleSettings } from '../../sources/lifecycle/rules';
import type { StateStore } from '../../state/store';
import type { SubjectRef } from './subject-facts';

/** A fact the document records as announced (or passed silently at the baseline), with its eventId. */
export interface RecordedFact {
  readonly detailType: string;
  readonly about: string;
  readonly eventId: string;
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
  /** What the document keeps of the subject (absent: nothing yet). */
  readonly kept: Record<string, unknown> | null;
  readonly recorded: RecordedFact[];
  /** The next moment a time-based rule can fire for the subject, as things stand (UTC). */
  readonly nextDueAt: string | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

function recordedFacts(clubId: string, subject: SubjectRef, kept: Record<string, unknown>): RecordedFact[] {
  const id = (type: string, ...parts: string[]) =>
    makeEventId(clubId, 'lifecycle', type, subject.id, ...parts);
  const out: RecordedFact[] = [];
  if (subject.kind === 'prospect') {
    for (const end of (kept.ends as string[] | undefined) ?? [])
      out.push({
        detailType: DETAIL_TYPES.ProspectTrialEnding,
        about: `trial end ${end}`,
        eventId: id(DETAIL_TYPES.ProspectTrialEnding, 'trialEnding', end),
      });
    return out;
  }
  const life = kept as {
    firstVisitOf?: string;
    lapse?: { from: string; announced: boolean };
    expiring?: string[];
  };
  if (life.firstVisitOf)
    out.push({
      detailType: DETAIL_TYPES.MemberFirstVisit,
      about: `membership start ${life.firstVisitOf}`,
      eventId: id(DETAIL_TYPES.MemberFirstVisit, 'firstVisit', life.firstVisitOf),
    });
  if (life.lapse?.announced)
    out.push({
      detailType: DETAIL_TYPES.MemberInactive,
      about: `lapse from ${life.lapse.from}`,
      eventId: id(DETAIL_TYPES.MemberInactive, 'inactive', life.lapse.from),
    });
  for (const mark of life.expiring ?? []) {
    const [kind, date] = mark.split('|') as [string, string];
    out.push({
      detailType: DETAIL_TYPES.MembershipExpiring,
      about: `${kind} ${date}`,
      eventId: id(DETAIL_TYPES.MembershipExpiring, 'expiring', kind, date),
    });
  }
  return out;
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
  const [doc, states] = await Promise.all([
    readKeptLifecycle(store, club.clubId),
    store.readClubStates([club.clubId], month),
  ]);
  const hour = states.get(club.clubId)?.lifecycleHour;
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
    kept: keptView,
    recorded: keptView ? recordedFacts(club.clubId, subject, keptView) : [],
    nextDueAt: due === undefined ? null : iso(due),
  };
}
