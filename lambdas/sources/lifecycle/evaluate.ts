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
import { localAt } from './local-time';
import {
  evaluateMember,
  evaluateProspect,
  isBaseline,
  type LifecycleSettings,
  type MemberDue,
  type MemberFacts,
  type MemberLife,
  type ProspectFacts,
  type TrialEndingDue,
} from './rules';

/** What the bridge keeps of a club's lifecycle between evaluations. */
export interface LifecycleDoc {
  readonly version: 1;
  /** Local wall-clock time tracking began, and its instant. */
  readonly trackedSince: string;
  readonly trackedSinceMs: number;
  readonly members: Readonly<Record<string, MemberLife & { readonly pay?: PaymentLife }>>;
  /** Per prospect, the trial ends announced (or passed silently). */
  readonly prospects: Readonly<Record<string, readonly string[]>>;
}

export interface LifecycleInput {
  readonly doc: LifecycleDoc | undefined;
  readonly nowMs: number;
  readonly zone: string;
  readonly settings: LifecycleSettings;
  readonly members: ReadonlyMap<string, MemberFacts>;
  readonly prospects: ReadonlyMap<string, ProspectFacts>;
  /** Visits of the window, local times, by member number. */
  readonly visits: ReadonlyMap<string, readonly string[]>;
  /** Payment outcomes of the window, by member number. */
  readonly payments: ReadonlyMap<string, readonly PaymentOutcome[]>;
}

export type LifecycleFact =
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
  | { readonly prospect: string; readonly fact: 'trialEnding'; readonly found: TrialEndingDue };

export interface LifecycleOutcome {
  readonly doc: LifecycleDoc;
  readonly facts: LifecycleFact[];
  /** The earliest moment a time-based rule can fire next, as things stand. */
  readonly nextAtMs?: number;
}

type Life = MemberLife & { pay?: PaymentLife };

/** A member's life after this evaluation's visits, payments and time-based rules, and its facts. */
function memberStep(
  number: string,
  facts: MemberFacts,
  life: Life,
  input: LifecycleInput,
  tracking: { since: string; sinceMs: number; first: boolean },
): { life: Life; facts: LifecycleFact[]; nextAtMs?: number } {
  const out: LifecycleFact[] = [];
  const visits = foldVisits(facts, life, input.visits.get(number) ?? [], tracking.since);
  let next: Life = visits.life;
  if (!tracking.first) {
    if (visits.facts.firstVisit)
      out.push({ member: number, fact: 'firstVisit', found: visits.facts.firstVisit });
    if (visits.facts.returned) out.push({ member: number, fact: 'returned', found: visits.facts.returned });
  }
  const outcomes = input.payments.get(number) ?? [];
  if (outcomes.length > 0) {
    const paid = foldPayments(life.pay ?? {}, outcomes);
    next = { ...next, pay: paid.life };
    if (!tracking.first)
      for (const r of paid.recovered) out.push({ member: number, fact: 'recovered', found: r });
  }
  const timed = evaluateMember(facts, next, tracking.since, input.nowMs, input.zone, input.settings);
  for (const due of timed.due) {
    if (due.rule === 'inactive') {
      next = { ...next, lapse: { from: due.from, lastVisitAt: due.lastVisitAt, announced: true } };
    } else {
      next = { ...next, expiring: [...(next.expiring ?? []), `${due.kind}|${due.date}`] };
    }
    if (!isBaseline(due.momentMs, tracking.sinceMs)) out.push({ member: number, fact: 'due', found: due });
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
  const { expiring: _all, ...rest } = life;
  return kept.length > 0 ? { ...rest, expiring: kept } : rest;
}

/** Evaluates the club: the facts to publish and the document to keep after publishing them. */
export function evaluateLifecycle(input: LifecycleInput): LifecycleOutcome {
  const first = input.doc === undefined;
  const since = input.doc?.trackedSince ?? localAt(input.nowMs, input.zone);
  const sinceMs = input.doc?.trackedSinceMs ?? input.nowMs;
  const tracking = { since, sinceMs, first };
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
    if (Object.keys(life).length > 0) members[number] = life;
  }
  const prospects: Record<string, string[]> = {};
  for (const [number, prospectFacts] of input.prospects) {
    const announced = input.doc?.prospects[number] ?? [];
    const evaluated = evaluateProspect(prospectFacts, announced, input.nowMs, input.zone, input.settings);
    soonest(evaluated.nextAtMs);
    const marks = [...announced.filter((end) => end > nowLocal)];
    for (const due of evaluated.due) {
      marks.push(due.trialEndDate);
      if (!isBaseline(due.momentMs, sinceMs))
        facts.push({ prospect: number, fact: 'trialEnding', found: due });
    }
    if (marks.length > 0) prospects[number] = marks;
  }
  const doc: LifecycleDoc = { version: 1, trackedSince: since, trackedSinceMs: sinceMs, members, prospects };
  return nextAtMs === undefined ? { doc, facts } : { doc, facts, nextAtMs };
}
