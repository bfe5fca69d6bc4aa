/**
 * One lifecycle evaluation of a club (docs/lifecycle.md), pure: what the bridge kept (the
 * lifecycle document), the facts of its snapshots, the visits and payment outcomes of the window
 * it re-reads, the clock, the zone and the settings in; the facts to publish and the document to
 * keep once they are published out. The first evaluation (no document) starts tracking and
 * records what is underway silently.
 *
 * Idempotent: evaluating again with the document it returned and the same inputs finds nothing
 * new. A crash between publishing and keeping the document evaluates the same inputs with the
 * older document and finds the same facts again (same eventId parts).
 */
import { foldPayments, foldVisits, type PaymentLife, type PaymentOutcome, type VisitFacts } from './folds';
import {
  evaluateMember,
  evaluateProspect,
  hasLife,
  instantOf,
  type LifecycleSettings,
  lifeWith,
  localAt,
  type MemberDue,
  type MemberFacts,
  type MemberLife,
  type ProspectFacts,
  QUALIFYING_FACTS,
  type TrialEndingDue,
} from './rules';

/** What the bridge keeps of a club's lifecycle between evaluations. */
export interface LifecycleDoc {
  readonly version: 1;
  /** Local wall-clock time tracking began, and its instant. */
  readonly trackedSince: string;
  readonly trackedSinceMs: number;
  /**
   * The start of the visit history the first evaluation read (local): visits from it on are known
   * to the bridge. Absent in a club tracked before that history was read: the start of tracking.
   */
  readonly seenFrom?: string;
  readonly members: Readonly<Record<string, MemberLife & { readonly pay?: PaymentLife }>>;
  /** Per prospect, the trial ends announced (or passed silently). */
  readonly prospects: Readonly<Record<string, readonly string[]>>;
}

/** The start of the visit history the bridge knows (docs/lifecycle.md, "Baseline and late qualifiers"). */
export const seenFromOf = (doc: Pick<LifecycleDoc, 'trackedSince' | 'seenFrom'>): string =>
  doc.seenFrom ?? doc.trackedSince;

/** A subject's facts that differ from those the last evaluation read (all of a new subject's). */
export interface FactChange {
  /** When the bridge read the change: the snapshot's time (the poll that read the record). */
  readonly atMs: number;
  readonly fields: readonly string[];
}

export interface LifecycleInput {
  readonly doc: LifecycleDoc | undefined;
  readonly nowMs: number;
  readonly zone: string;
  readonly settings: LifecycleSettings;
  readonly members: ReadonlyMap<string, MemberFacts>;
  readonly prospects: ReadonlyMap<string, ProspectFacts>;
  /** Visits of the window (and, at the first evaluation, of the history read), local times, by member. */
  readonly visits: ReadonlyMap<string, readonly string[]>;
  /** Payment outcomes of the window, by member number. */
  readonly payments: ReadonlyMap<string, readonly PaymentOutcome[]>;
  /** The subjects whose facts changed since the last evaluation read them. */
  readonly changes?: {
    readonly members?: ReadonlyMap<string, FactChange>;
    readonly prospects?: ReadonlyMap<string, FactChange>;
  };
  /** The first evaluation: the start of the visit history read for it (local), if one was read. */
  readonly historyFrom?: string;
}

/** Every fact carries occurredAt (epoch ms): see `announcement`. */
interface Announced {
  readonly occurredAtMs: number;
}

export type LifecycleFact = Announced &
  (
    | {
        readonly member: string;
        readonly fact: 'firstVisit';
        readonly found: NonNullable<VisitFacts['firstVisit']>;
      }
    | {
        readonly member: string;
        readonly fact: 'returned';
        readonly found: NonNullable<VisitFacts['returned']>;
      }
    | {
        readonly member: string;
        readonly fact: 'recovered';
        readonly found: ReturnType<typeof foldPayments>['recovered'][number];
      }
    | { readonly member: string; readonly fact: 'due'; readonly found: MemberDue }
    | { readonly prospect: string; readonly fact: 'trialEnding'; readonly found: TrialEndingDue }
  );

export interface LifecycleOutcome {
  readonly doc: LifecycleDoc;
  readonly facts: LifecycleFact[];
  /** The earliest moment a time-based rule can fire next, as things stand. */
  readonly nextAtMs?: number;
}

type Life = MemberLife & { pay?: PaymentLife };

export interface Tracking {
  readonly since: string;
  readonly sinceMs: number;
  readonly seenFrom: string;
  readonly first: boolean;
}

/**
 * THE rule of every lifecycle event (docs/lifecycle.md, "Baseline and late qualifiers"): a fact the
 * club's first evaluation finds is its baseline, recorded and never published; a fact any later
 * evaluation finds is published, whether its subject qualified late or not (a new subject, a status
 * change, a date set or moved, a re-activation). Its occurredAt is the later of its moment (the
 * threshold crossed, or the time of the record that makes it), the moment the bridge read the
 * change that made the subject qualify (`qualifiedAtMs`), and the start of tracking. Returns
 * occurredAt, or undefined for a baseline fact.
 */
export function announcement(
  tracking: Tracking,
  momentMs: number,
  qualifiedAtMs?: number,
): number | undefined {
  if (tracking.first) return undefined;
  return Math.max(momentMs, qualifiedAtMs ?? Number.NEGATIVE_INFINITY, tracking.sinceMs);
}

/** When the bridge read a change of one of `facts` of the subject since the last evaluation, if any. */
function qualifiedAt(change: FactChange | undefined, facts: readonly string[]): number | undefined {
  return change && facts.some((f) => change.fields.includes(f)) ? change.atMs : undefined;
}

const qualifyingFacts = (due: MemberDue) =>
  due.rule === 'inactive' ? QUALIFYING_FACTS.inactive : QUALIFYING_FACTS[due.kind];

/** The record-based facts of a member's visits and payments in this evaluation. */
function recordFacts(
  number: string,
  facts: MemberFacts,
  life: Life,
  input: LifecycleInput,
  tracking: Tracking,
): { life: Life; facts: LifecycleFact[] } {
  const out: LifecycleFact[] = [];
  const at = (local: string) => announcement(tracking, instantOf(local, input.zone));
  const visits = foldVisits(facts, life, input.visits.get(number) ?? [], tracking.seenFrom);
  let next: Life = visits.life;
  const { firstVisit, returned } = visits.facts;
  const firstAt = firstVisit && at(firstVisit.visitedAt);
  if (firstVisit && firstAt !== undefined)
    out.push({ member: number, fact: 'firstVisit', found: firstVisit, occurredAtMs: firstAt });
  const returnedAt = returned && at(returned.visitedAt);
  if (returned && returnedAt !== undefined)
    out.push({ member: number, fact: 'returned', found: returned, occurredAtMs: returnedAt });
  const outcomes = input.payments.get(number) ?? [];
  if (outcomes.length > 0) {
    const paid = foldPayments(life.pay ?? {}, outcomes);
    next = lifeWith(next, { pay: paid.life });
    for (const r of paid.recovered) {
      const occurredAtMs = at(r.recoveredAt);
      if (occurredAtMs !== undefined) out.push({ member: number, fact: 'recovered', found: r, occurredAtMs });
    }
  }
  return { life: next, facts: out };
}

/** A member's life after this evaluation's visits, payments and time-based rules, and its facts. */
function memberStep(
  number: string,
  facts: MemberFacts,
  life: Life,
  input: LifecycleInput,
  tracking: Tracking,
): { life: Life; facts: LifecycleFact[]; nextAtMs?: number } {
  const records = recordFacts(number, facts, life, input, tracking);
  const out = records.facts;
  let next = records.life;
  const timed = evaluateMember(facts, next, tracking.seenFrom, input.nowMs, input.zone, input.settings);
  const change = input.changes?.members?.get(number);
  for (const due of timed.due) {
    const occurredAtMs = announcement(tracking, due.momentMs, qualifiedAt(change, qualifyingFacts(due)));
    const announced = occurredAtMs !== undefined;
    if (due.rule === 'inactive') {
      // A baseline lapse is recorded silent: its return is no news either.
      next = lifeWith(next, { lapse: { from: due.from, lastVisitAt: due.lastVisitAt, announced } });
    } else {
      next = lifeWith(next, { expiring: [...(next.expiring ?? []), `${due.kind}|${due.date}`] });
    }
    if (announced) out.push({ member: number, fact: 'due', found: due, occurredAtMs });
  }
  return timed.nextAtMs === undefined
    ? { life: next, facts: out }
    : { life: next, facts: out, nextAtMs: timed.nextAtMs };
}

/** Expiry and trial-end marks whose date has passed are dropped: the document keeps what can still fire. */
function pruned(life: Life, nowLocal: string): Life {
  if (!life.expiring) return life;
  const kept = life.expiring.filter((mark) => mark.slice(mark.indexOf('|') + 1) > nowLocal);
  if (kept.length === life.expiring.length) return life;
  return lifeWith(life, { expiring: kept.length > 0 ? kept : undefined });
}

/** The start of tracking, and of the visit history known: as kept, or begun by this evaluation. */
function trackingOf(input: LifecycleInput): Tracking {
  if (input.doc) {
    const { trackedSince: since, trackedSinceMs: sinceMs } = input.doc;
    return { since, sinceMs, seenFrom: seenFromOf(input.doc), first: false };
  }
  const since = localAt(input.nowMs, input.zone);
  return { since, sinceMs: input.nowMs, seenFrom: input.historyFrom ?? since, first: true };
}

/** Evaluates the club: the facts to publish and the document to keep after publishing them. */
export function evaluateLifecycle(input: LifecycleInput): LifecycleOutcome {
  const tracking = trackingOf(input);
  const nowLocal = localAt(input.nowMs, input.zone);
  const facts: LifecycleFact[] = [];
  let nextAtMs: number | undefined;
  const soonest = (ms: number | undefined) => {
    if (ms !== undefined) nextAtMs = nextAtMs === undefined ? ms : Math.min(nextAtMs, ms);
  };
  const members: Record<string, Life> = {};
  for (const [number, memberFacts] of input.members) {
    const step = memberStep(number, memberFacts, input.doc?.members[number] ?? {}, input, tracking);
    facts.push(...step.facts);
    soonest(step.nextAtMs);
    const life = pruned(step.life, nowLocal);
    if (hasLife(life)) members[number] = life;
  }
  const prospects: Record<string, string[]> = {};
  for (const [number, prospectFacts] of input.prospects) {
    const announced = input.doc?.prospects[number] ?? [];
    const evaluated = evaluateProspect(prospectFacts, announced, input.nowMs, input.zone, input.settings);
    soonest(evaluated.nextAtMs);
    const marks = [...announced.filter((end) => end > nowLocal)];
    const change = input.changes?.prospects?.get(number);
    for (const due of evaluated.due) {
      marks.push(due.trialEndDate);
      const occurredAtMs = announcement(
        tracking,
        due.momentMs,
        qualifiedAt(change, QUALIFYING_FACTS.trialEnding),
      );
      if (occurredAtMs !== undefined)
        facts.push({ prospect: number, fact: 'trialEnding', found: due, occurredAtMs });
    }
    if (marks.length > 0) prospects[number] = marks;
  }
  const { since: trackedSince, sinceMs: trackedSinceMs, seenFrom } = tracking;
  const doc: LifecycleDoc = {
    version: 1,
    trackedSince,
    trackedSinceMs,
    ...(seenFrom === trackedSince ? {} : { seenFrom }),
    members,
    prospects,
  };
  return nextAtMs === undefined ? { doc, facts } : { doc, facts, nextAtMs };
}
