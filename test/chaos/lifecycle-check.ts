/**
 * The lifecycle verdict of a chaos run (issue 19): the lifecycle events on the bus against the
 * facts the sandbox's records and journal imply (lifecycle-truth.ts), by the rules as
 * docs/lifecycle.md states them, computed here without the bridge's lifecycle code. Facts are
 * compared by eventId (makeEventId of the fact's documented identity), so the check also proves
 * that one fact has one id whichever poll, retry or crash found it.
 *
 * The one rule (docs/lifecycle.md, "Baseline and late qualifiers"): a fact the first evaluation
 * (`trackedSinceMs`) saw satisfying its rule is the baseline and is never published; one that comes
 * to satisfy it later (a new subject, a status change, a date set or moved) is published by the first
 * evaluation that sees it. What the first evaluation saw is the API's state somewhere between the
 * end of the baseline polls and its clock (its snapshots are that old at most), and the visits
 * shown by then since `seenFrom` (the visit history it read). A lapse counts from the real last
 * visit. The bridge evaluates at most hourly and knows what it has polled, so a fact is:
 * - required when the last evaluation (`endMs`, a poll of the settling phase with every source
 *   complete and no fault) had to announce it and nothing after could withdraw it: a lapse still
 *   open, an expiry or trial end still ahead with its window open, a first visit or a return seen,
 *   and the first evaluation cannot have seen it satisfied;
 * - allowed when some evaluation after the first could have announced it from what the API showed
 *   by then (a lapse that a visit dated before its moment closes is allowed when the API did not show
 *   that visit before the moment: late data, docs/lifecycle.md), and the first evaluation need not
 *   have seen it satisfied;
 * - spurious when published and not allowed: a fact that never was, a baseline fact announced, a
 *   fact of a subject in the wrong status, or a second id for one fact.
 * Payment Recovered depends on which outcomes one evaluation reads together: required when every
 * way the evaluations could have grouped a member's outcomes (consecutive runs, in the order the
 * API showed them) finds it, allowed when one does (lifecycle-recovered.ts).
 */
import type { BridgeEvent } from '../../lambdas/events/catalog';
import { makeEventId } from '../../lambdas/events/event-id';
import { recoveredFacts } from './lifecycle-recovered';
import {
  DAY,
  HOUR,
  heldIn,
  instantIn,
  type MemberLife,
  memberLives,
  norm,
  plusDays,
  prospectLives,
  type SandboxView,
  type Timeline,
} from './lifecycle-truth';

export interface LifecycleSettingsView {
  readonly inactiveDays: number;
  readonly expiringDays: number;
  readonly trialEndingHours: number;
}

export interface LifecycleCheckInput extends SandboxView {
  readonly clubId: string;
  readonly zone: string;
  readonly settings: LifecycleSettingsView;
  /** The start of tracking as the bridge recorded it (its first evaluation): local and instant. */
  readonly trackedSince: string;
  readonly trackedSinceMs: number;
  /** The start of the visit history its first evaluation read (local; the doc's `seenFrom`). */
  readonly seenFrom: string;
  /** The last evaluation's clock. */
  readonly endMs: number;
  /** Lifecycle events delivered (re-deliveries included). */
  readonly events: readonly BridgeEvent[];
  /** Members whose records poison mode bent: their facts are neither required nor spurious. */
  readonly loose: ReadonlySet<string>;
}

export interface LifecycleCheck {
  /** Distinct lifecycle events compared. */
  readonly checked: number;
  readonly byType: Record<string, number>;
  readonly required: number;
  readonly missing: string[];
  readonly spurious: string[];
}

/** How much older than an evaluation the status it reads may be (a poll's lag), and a clock jump's slack. */
const LAG_MS = 6 * HOUR;
const SLACK_MS = 10 * 60_000;
/** Local times are whole seconds; instants of the engine's clock are not. */
const SECOND = 1000;

export class Facts {
  readonly allowed = new Map<string, string>();
  readonly required = new Map<string, string>();
  /** The earliest occurredAt each fact can carry (the one rule: never before its moment, the change that qualified it, or tracking). */
  readonly earliest = new Map<string, number>();
  constructor(private readonly clubId: string) {}

  id(type: string, ...identity: string[]): string {
    return makeEventId(this.clubId, 'lifecycle', type, ...identity);
  }

  add(label: string, id: string, required: boolean, earliestMs: number): void {
    this.allowed.set(id, label);
    if (required) this.required.set(id, label);
    this.earliest.set(id, Math.min(earliestMs, this.earliest.get(id) ?? Number.POSITIVE_INFINITY));
  }
}

const ACTIVE = (s: string | undefined) => s === 'Active';

/** When the timeline first held `value` (any value: when it begins, a subject's creation); 0 if unknown. */
function since<T>(timeline: Timeline<T> | undefined, ...value: T[]): number {
  const segment = timeline?.segments.find((s) => value.length === 0 || s.value === value[0]);
  return segment?.fromMs ?? 0;
}

/**
 * When the state the first evaluation read may date from: its snapshots are at most as old as the
 * end of the baseline polls, and at most LAG_MS.
 */
const firstViewFrom = (input: LifecycleCheckInput) =>
  Math.max(Math.min(input.baselineMs, input.trackedSinceMs), input.trackedSinceMs - LAG_MS);

/**
 * A state fact (an expiry, a trial end) by the one rule: `open` and `close` its window, `holds(t)`
 * its subject's state at t. Silent when the first evaluation saw it (its window open then, the state
 * held when it read it); announced when a later one sees it; required when the last one must have.
 */
function stateFact(
  input: LifecycleCheckInput,
  fact: { open: number; close: number; timelines: readonly (Timeline<unknown> | undefined)[] },
  holds: (ms: number) => boolean,
): { allowed: boolean; required: boolean } {
  const { trackedSinceMs: first, endMs } = input;
  const none = { allowed: false, required: false };
  if (fact.open > endMs || fact.close <= first) return none;
  const atFirst = heldIn(fact.timelines, firstViewFrom(input), first, holds);
  const windowAtFirst = fact.open <= first;
  // Seen satisfied by the first evaluation for sure: the baseline, never announced.
  if (windowAtFirst && atFirst.every) return none;
  const later = heldIn(
    fact.timelines,
    Math.max(fact.open, first) - LAG_MS,
    Math.min(fact.close, endMs),
    holds,
  );
  const silentMaybe = windowAtFirst && atFirst.some;
  return { allowed: later.some, required: !silentMaybe && endMs < fact.close && holds(endMs) };
}

function memberFacts(input: LifecycleCheckInput, facts: Facts, delivered: ReadonlySet<string>): void {
  const instant = instantIn(input.zone);
  const { endMs, trackedSinceMs, settings } = input;
  const seenFrom = norm(input.seenFrom);
  const viewFrom = firstViewFrom(input);
  for (const [member, life] of memberLives(input)) {
    const must = !input.loose.has(member);
    const activeAtEnd = ACTIVE(life.status.at(endMs));
    const visits = life.visits
      .filter((v) => instant(v.local) <= endMs && v.shownMs <= endMs)
      .sort((a, b) => (a.local < b.local ? -1 : 1));
    const shownBy = (v: { local: string; shownMs: number }) => Math.max(instant(v.local), v.shownMs);
    // Member First Visit: a membership the bridge could watch from its start (at or after the
    // history it read); silent when the first evaluation saw a visit since the start.
    const start = life.startDate;
    if (start && start >= seenFrom) {
      const since = visits.filter((v) => v.local >= start);
      const seenFirst = since.some((v) => v.shownMs <= trackedSinceMs - SLACK_MS);
      const maybeSeen = since.some((v) => v.shownMs <= trackedSinceMs + SLACK_MS);
      if (since.length > 0 && !seenFirst)
        facts.add(
          `First Visit ${member} ${start}`,
          facts.id('Member First Visit', member, 'firstVisit', start),
          must && !maybeSeen,
          Math.max(instant(since[0]!.local), trackedSinceMs),
        );
    }
    // Member Inactive: every point a lapse can count from (the history's start or the membership
    // start, then each visit since).
    const from0 = start && start > seenFrom ? start : seenFrom;
    const points = [from0, ...visits.map((v) => v.local).filter((l) => l > from0)];
    for (const [i, from] of points.entries()) {
      const momentMs = instant(plusDays(from, settings.inactiveDays));
      if (momentMs > endMs) continue;
      const closers = visits.filter((v) => v.local > from);
      const knownBy = (ms: number) => closers.some((v) => shownBy(v) <= ms - SLACK_MS);
      const found = Math.max(momentMs, trackedSinceMs);
      // The first evaluation found it (due, the member Active as it read them, no visit known since):
      // silent. For sure when the member was Active throughout what it may have read.
      const dueAtFirst = momentMs <= trackedSinceMs && !knownBy(trackedSinceMs + SLACK_MS);
      const activeAtFirst = heldIn([life.status], viewFrom, trackedSinceMs, (t) => ACTIVE(life.status.at(t)));
      if (dueAtFirst && activeAtFirst.every) continue;
      if (knownBy(found) || !life.status.someIn(found - LAG_MS, endMs, ACTIVE)) continue;
      const open = i === points.length - 1;
      const silentMaybe = momentMs <= trackedSinceMs && activeAtFirst.some;
      const inactiveId = facts.id('Member Inactive', member, 'inactive', from);
      facts.add(
        `Inactive ${member} from ${from}`,
        inactiveId,
        must && open && activeAtEnd && !silentMaybe,
        found,
      );
      // Member Returned: the first visit after an announced lapse.
      if (delivered.has(inactiveId) && closers.length > 0)
        facts.add(
          `Returned ${member} from ${from}`,
          facts.id('Member Returned', member, 'returned', from),
          must,
          Math.max(instant(closers[0]!.local), trackedSinceMs),
        );
    }
    expiringFacts(input, member, life, facts, must);
  }
}

function expiringFacts(
  input: LifecycleCheckInput,
  member: string,
  life: MemberLife,
  facts: Facts,
  must: boolean,
) {
  const instant = instantIn(input.zone);
  const dates: ['expiry' | 'minimumTerm', string | null | undefined][] = [];
  for (const s of life.expiryDate?.segments ?? []) dates.push(['expiry', s.value]);
  dates.push(['minimumTerm', life.minimumTermDate]);
  const loose = life.expiryDate === undefined;
  const seen = new Set<string>();
  for (const [kind, date] of dates) {
    if (!date || seen.has(`${kind}|${date}`)) continue;
    seen.add(`${kind}|${date}`);
    const dateHeld = (ms: number) => kind === 'minimumTerm' || (life.expiryDate?.at(ms) ?? null) === date;
    const holds = (ms: number) =>
      ACTIVE(life.status.at(ms)) && (life.cancellationDate.at(ms) ?? null) === null && dateHeld(ms);
    const fact = {
      open: instant(plusDays(date, -input.settings.expiringDays)),
      close: instant(date),
      timelines: [life.status, life.cancellationDate, life.expiryDate],
    };
    const { allowed, required } = stateFact(input, fact, holds);
    if (!allowed) continue;
    facts.add(
      `Expiring ${member} ${kind} ${date}`,
      facts.id('Membership Expiring', member, 'expiring', kind, date),
      must && !loose && required,
      // A date set or a member who joined after tracking began: not before the change (the one rule).
      Math.max(
        fact.open,
        input.trackedSinceMs,
        since(life.status),
        kind === 'expiry' ? since(life.expiryDate, date) : 0,
      ),
    );
  }
}

function trialFacts(input: LifecycleCheckInput, facts: Facts): void {
  const instant = instantIn(input.zone);
  for (const [prospect, life] of prospectLives(input)) {
    const seen = new Set<string>();
    for (const { value: date } of life.trialEndDate?.segments ?? []) {
      if (!date || seen.has(date)) continue;
      seen.add(date);
      const holds = (ms: number) => life.status.at(ms) === 'OnTrial' && life.trialEndDate?.at(ms) === date;
      const close = instant(date);
      const fact = {
        open: close - input.settings.trialEndingHours * HOUR,
        close,
        timelines: [life.status, life.trialEndDate],
      };
      const { allowed, required } = stateFact(input, fact, holds);
      if (!allowed) continue;
      facts.add(
        `Trial Ending ${prospect} ${date}`,
        facts.id('Prospect Trial Ending', prospect, 'trialEnding', date),
        required && life.trialEndDate !== undefined,
        Math.max(fact.open, input.trackedSinceMs, since(life.status), since(life.trialEndDate, date)),
      );
    }
  }
}

export function checkLifecycle(input: LifecycleCheckInput): LifecycleCheck {
  const distinct = new Map<string, BridgeEvent>();
  for (const e of input.events) distinct.set(e.detail.eventId, e);
  const facts = new Facts(input.clubId);
  memberFacts(input, facts, new Set(distinct.keys()));
  trialFacts(input, facts);
  recoveredFacts(input, facts);
  const byType: Record<string, number> = {};
  const spurious: string[] = [];
  for (const [id, e] of distinct) {
    byType[e.detailType] = (byType[e.detailType] ?? 0) + 1;
    const subject = e.detail.subject.memberNumber ?? e.detail.subject.prospectNumber ?? '';
    if (input.loose.has(subject)) continue;
    if (!facts.allowed.has(id)) {
      spurious.push(`${e.detailType} ${subject} ${JSON.stringify(e.detail).slice(0, 300)}`);
      continue;
    }
    // occurredAt by the one rule: not before the fact's moment, the change that qualified it or the
    // start of tracking (earliest), and not after the evaluation that found it (observedAt). A
    // Payment Recovered is at its PaymentDate, read in the zone the club reads unstated times in,
    // which the suite draws wrong on purpose in some runs: hours either way, so no upper bound.
    const occurredMs = Date.parse(String(e.detail.occurredAt));
    const earliest = facts.earliest.get(id) ?? Number.NEGATIVE_INFINITY;
    const latest =
      e.detailType === 'Payment Recovered'
        ? Number.POSITIVE_INFINITY
        : Date.parse(String(e.detail.observedAt));
    if (!(occurredMs >= earliest - SECOND && occurredMs <= latest))
      spurious.push(
        `${e.detailType} ${subject}: occurredAt ${String(e.detail.occurredAt)} outside [${new Date(earliest).toISOString()}, observedAt ${String(e.detail.observedAt)}]`,
      );
  }
  const missing = [...facts.required].filter(([id]) => !distinct.has(id)).map(([, label]) => label);
  return { checked: distinct.size, byType, required: facts.required.size, missing, spurious };
}

export { DAY };
