/**
 * The lifecycle verdict of a chaos run (issue 19): the lifecycle events on the bus against the
 * facts the sandbox's records and journal imply (lifecycle-truth.ts), by the rules as
 * docs/lifecycle.md states them, computed here without the bridge's lifecycle code. Facts are
 * compared by eventId (makeEventId of the fact's documented identity), so the check also proves
 * that one fact has one id whichever poll, retry or crash found it.
 *
 * The bridge evaluates at most hourly and knows what it has polled, so a fact is:
 * - required when the last evaluation (`endMs`, a poll of the settling phase with every source
 *   complete and no fault) had to announce it and nothing after could withdraw it: a lapse still
 *   open, an expiry or trial end still ahead with its window open, a first visit or a return seen;
 * - allowed when some evaluation between its moment and the end could have announced it from what
 *   the API showed by then (a lapse that a visit dated before its moment closes is allowed when the
 *   API did not show that visit before the moment: late data, docs/lifecycle.md);
 * - spurious when published and not allowed: a fact that never was, a baseline fact announced, a
 *   fact of a subject in the wrong status, or a second id for one fact.
 * Payment Recovered depends on which outcomes one evaluation reads together: required when every
 * way the evaluations could have grouped a member's outcomes (consecutive runs, in the order the
 * API showed them) finds it, allowed when one does.
 */
import type { BridgeEvent } from '../../lambdas/events/catalog';
import { makeEventId } from '../../lambdas/events/event-id';
import {
  DAY,
  HOUR,
  instantIn,
  type MemberLife,
  memberLives,
  norm,
  type Observation,
  paymentObservations,
  plusDays,
  prospectLives,
  type SandboxView,
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

class Facts {
  readonly allowed = new Map<string, string>();
  readonly required = new Map<string, string>();
  constructor(private readonly clubId: string) {}

  id(type: string, ...identity: string[]): string {
    return makeEventId(this.clubId, 'lifecycle', type, ...identity);
  }

  add(label: string, id: string, required: boolean): void {
    this.allowed.set(id, label);
    if (required) this.required.set(id, label);
  }
}

const ACTIVE = (s: string) => s === 'Active';

function memberFacts(input: LifecycleCheckInput, facts: Facts, delivered: ReadonlySet<string>): void {
  const instant = instantIn(input.zone);
  const { endMs, trackedSinceMs, settings } = input;
  const since = norm(input.trackedSince);
  for (const [member, life] of memberLives(input)) {
    const must = !input.loose.has(member);
    const activeNear = (fromMs: number) => life.status.someIn(fromMs - LAG_MS, endMs, ACTIVE);
    const activeAtEnd = life.status.at(endMs) === 'Active';
    const visits = life.visits
      .filter((v) => instant(v.local) <= endMs && v.shownMs <= endMs)
      .sort((a, b) => (a.local < b.local ? -1 : 1));
    const shownBy = (v: { local: string; shownMs: number }) => Math.max(instant(v.local), v.shownMs);
    // Member First Visit: a membership that started after tracking began, and a visit since.
    const start = life.startDate;
    if (start && start >= since) {
      const first = visits.find((v) => v.local >= start);
      if (first)
        facts.add(
          `First Visit ${member} ${start}`,
          facts.id('Member First Visit', member, 'firstVisit', start),
          must,
        );
    }
    // Member Inactive: every point a lapse can count from (tracking or start, then each visit).
    const from0 = start && start > since ? start : since;
    const points = [from0, ...visits.map((v) => v.local).filter((l) => l > from0)];
    for (const [i, from] of points.entries()) {
      const momentMs = instant(plusDays(from, settings.inactiveDays));
      if (momentMs > endMs || momentMs <= trackedSinceMs) continue;
      const closers = visits.filter((v) => v.local > from);
      const knownBefore = closers.some((v) => shownBy(v) <= momentMs - SLACK_MS);
      if (knownBefore || !activeNear(momentMs)) continue;
      const open = i === points.length - 1;
      const inactiveId = facts.id('Member Inactive', member, 'inactive', from);
      facts.add(`Inactive ${member} from ${from}`, inactiveId, must && open && activeAtEnd);
      // Member Returned: the first visit after an announced lapse.
      if (delivered.has(inactiveId) && closers.length > 0)
        facts.add(
          `Returned ${member} from ${from}`,
          facts.id('Member Returned', member, 'returned', from),
          must,
        );
    }
    expiringFacts(input, member, life, facts, must && activeAtEnd);
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
  const { endMs, trackedSinceMs, settings } = input;
  const dates: ['expiry' | 'minimumTerm', string | null | undefined, boolean][] = [];
  for (const s of life.expiryDate?.segments ?? [])
    dates.push(['expiry', s.value, life.expiryDate?.at(endMs) === s.value]);
  dates.push(['minimumTerm', life.minimumTermDate, true]);
  const loose = life.expiryDate === undefined;
  for (const [kind, date, heldAtEnd] of dates) {
    if (!date) continue;
    const endOfDate = instant(date);
    const momentMs = instant(plusDays(date, -settings.expiringDays));
    if (momentMs <= trackedSinceMs || momentMs > endMs) continue;
    const until = Math.min(endOfDate, endMs);
    const uncancelled = life.cancellationDate.someIn(momentMs - LAG_MS, until, (c) => c === null);
    if (!uncancelled || !life.status.someIn(momentMs - LAG_MS, until, ACTIVE)) continue;
    const required =
      must && !loose && heldAtEnd && endMs < endOfDate && life.cancellationDate.at(endMs) === null;
    facts.add(
      `Expiring ${member} ${kind} ${date}`,
      facts.id('Membership Expiring', member, 'expiring', kind, date),
      required,
    );
  }
}

function trialFacts(input: LifecycleCheckInput, facts: Facts): void {
  const instant = instantIn(input.zone);
  const { endMs, trackedSinceMs, settings } = input;
  for (const [prospect, life] of prospectLives(input)) {
    const ends = life.trialEndDate?.segments ?? [];
    for (const { value: date } of ends) {
      if (!date) continue;
      const endOfTrial = instant(date);
      const momentMs = endOfTrial - settings.trialEndingHours * HOUR;
      if (momentMs <= trackedSinceMs || momentMs > endMs) continue;
      const until = Math.min(endOfTrial, endMs);
      if (!life.status.someIn(momentMs - LAG_MS, until, (s) => s === 'OnTrial')) continue;
      const required =
        life.trialEndDate !== undefined &&
        endMs < endOfTrial &&
        life.status.at(endMs) === 'OnTrial' &&
        life.trialEndDate.at(endMs) === date;
      facts.add(
        `Trial Ending ${prospect} ${date}`,
        facts.id('Prospect Trial Ending', prospect, 'trialEnding', date),
        required,
      );
    }
  }
}

interface PayState {
  last?: string;
  tied?: string[];
  open?: Observation;
}

/**
 * Folds one evaluation's new outcomes by the documented rule (by date, then id, a success first;
 * none dated before the latest taken; each outcome at that date once); the recoveries
 * (member|failed id) it finds.
 */
function fold(states: Map<string, PayState>, batch: readonly Observation[], found?: Set<string>): void {
  const order = (o: Observation) =>
    `${o.date}|${o.paymentId.padStart(20, '0')}|${o.outcome === 'succeeded' ? 0 : 1}`;
  for (const o of [...batch].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0))) {
    const state = states.get(o.member) ?? {};
    const key = `${o.paymentId}|${o.outcome}`;
    if (state.last && o.date < state.last) continue;
    if (state.last === o.date && state.tied?.includes(key)) continue;
    const tied = state.last === o.date ? [...(state.tied ?? []), key] : [key];
    if (o.outcome === 'failed') states.set(o.member, { last: o.date, tied, open: o });
    else {
      if (state.open && state.open.paymentId !== o.paymentId)
        found?.add(`${o.member}|${state.open.paymentId}`);
      states.set(o.member, { last: o.date, tied });
    }
  }
}

/** Outcomes past this many a member are not split every way (2^(n-1) ways): any reading is allowed. */
const MAX_SPLIT = 12;

/**
 * The recoveries of one member under every way the evaluations could have grouped its outcomes
 * (consecutive runs in the order the API showed them): found by all (required) or by some (allowed).
 */
function memberRecoveries(start: PayState, outcomes: readonly Observation[]) {
  const all = new Set<string>();
  let every: Set<string> | undefined;
  const n = outcomes.length;
  const splits = n <= MAX_SPLIT ? 2 ** Math.max(0, n - 1) : 0;
  const run = (cuts: (i: number) => boolean) => {
    const states = new Map([[outcomes[0]!.member, { ...start }]]);
    const found = new Set<string>();
    let batch: Observation[] = [];
    outcomes.forEach((o, i) => {
      batch.push(o);
      if (i === n - 1 || cuts(i)) {
        fold(states, batch, found);
        batch = [];
      }
    });
    for (const k of found) all.add(k);
    every = every ? new Set([...every].filter((k) => found.has(k))) : found;
  };
  if (splits === 0) {
    run(() => true);
    run(() => false);
    return { all, every: new Set<string>() };
  }
  for (let mask = 0; mask < splits; mask++) run((i) => ((mask >> i) & 1) === 1);
  return { all, every: every ?? new Set<string>() };
}

function recoveredFacts(input: LifecycleCheckInput, facts: Facts): void {
  // What the API showed by the first evaluation is the baseline: folded at once, never announced.
  const observed = paymentObservations(input);
  const before = [...observed.before, ...observed.after.filter((o) => o.shownMs <= input.trackedSinceMs)];
  const states = new Map<string, PayState>();
  fold(states, before);
  const byMember = new Map<string, Observation[]>();
  for (const o of observed.after.filter((x) => x.shownMs > input.trackedSinceMs))
    byMember.set(o.member, [...(byMember.get(o.member) ?? []), o]);
  for (const [member, outcomes] of byMember) {
    const { all, every } = memberRecoveries(states.get(member) ?? {}, outcomes);
    for (const key of all) {
      const failed = key.slice(key.indexOf('|') + 1);
      const required = every.has(key) && !input.loose.has(member);
      facts.add(
        `Recovered ${member} after ${failed}`,
        facts.id('Payment Recovered', member, 'recovered', failed),
        required,
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
    if (facts.allowed.has(id) || input.loose.has(subject)) continue;
    spurious.push(`${e.detailType} ${subject} ${JSON.stringify(e.detail).slice(0, 300)}`);
  }
  const missing = [...facts.required].filter(([id]) => !distinct.has(id)).map(([, label]) => label);
  return { checked: distinct.size, byType, required: facts.required.size, missing, spurious };
}

export { DAY };
