/**
 * Payment Recovered facts for the lifecycle verdict (lifecycle-check.ts): a success after a failed
 * payment of the same member, by the documented rule (docs/lifecycle.md). Which recoveries an
 * evaluation finds depends on which outcomes it reads together: a fact is required when every way the
 * evaluations could have grouped a member's outcomes (consecutive runs, in the order the API showed
 * them) finds it, allowed when one does. What the API showed by the first evaluation is the baseline.
 */
import type { Facts, LifecycleCheckInput } from './lifecycle-check';
import { type Observation, paymentObservations } from './lifecycle-truth';

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

export function recoveredFacts(input: LifecycleCheckInput, facts: Facts): void {
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
        input.trackedSinceMs,
      );
    }
  }
}
