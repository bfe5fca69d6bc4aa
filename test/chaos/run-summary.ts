/**
 * The figures of one chaos run as a long-run worker sends them back (long-run.ts): the verdicts'
 * counts without the bulky parts, the faults injected and the scenario's traits. report.ts renders
 * docs/reliability.md from many of them.
 */
import { type Counters, failsOperationalPublishes } from '../support/fault-injector';
import type { ChaosRunResult } from './harness';
import type { PoisonFigures } from './poison-check';

/** What a worker sends back per run: the result without the bulky parts. */
export interface RunSummary {
  readonly seed: number;
  readonly ok: boolean;
  readonly failures: string[];
  readonly journalEntries: number;
  readonly delivered: number;
  readonly checked: number;
  readonly duplicates: number;
  readonly missing: number;
  readonly spurious: number;
  readonly unexplainedDuplicates: number;
  readonly idConflicts: number;
  readonly injected: Counters;
  readonly polls: number;
  readonly durationMs: number;
  /** Scenario traits that are not counted per injection (a run either has them or not). */
  readonly traits: string[];
  /** The poison accounting (poison-check.ts); absent in summaries kept before it existed. */
  readonly poison?: PoisonFigures;
  /** The lifecycle verdict (lifecycle-check.ts); absent in summaries kept before it existed. */
  readonly lifecycle?: {
    readonly checked: number;
    readonly required: number;
    readonly missing: number;
    readonly spurious: number;
    readonly byType: Record<string, number>;
  };
  /** The operational verdict (operational-check.ts); absent in summaries kept before it existed. */
  readonly operational?: {
    readonly checked: number;
    readonly required: number;
    readonly missing: number;
    readonly spurious: number;
    readonly byType: Record<string, number>;
    /** Whether the run failed the first publish of each operational event. */
    readonly failedFirst: boolean;
  };
}

export function summarise(result: ChaosRunResult): RunSummary {
  const { scenario: s, check } = result;
  const traits = [
    `zone ${s.sandbox.timeZone}`,
    ...(s.sandbox.dstTransition ? [`DST ${s.sandbox.dstTransition}`] : []),
    `API writes unstated-zone times as ${s.sandbox.ambiguousZone}, bridge reads them as ${s.club.unstatedZone}${s.club.unstatedZoneConfirmed ? ' (confirmed: 1 h tails)' : ''}`,
    ...(s.api.unstableOrdering ? ['unstable ordering'] : []),
    ...(s.api.insertWhilePaging > 0 ? ['inserts while paging'] : []),
    ...(s.api.lateArrivalRate > 0 ? ['late arrivals'] : []),
    ...(s.api.latencyMs + s.api.latencyJitterMs > 0 ? ['slow responses'] : []),
    ...(s.api.tokenLifetimeSec < 3600 ? ['short-lived tokens'] : []),
    ...(s.faultsInBaseline ? ['faults during the baseline'] : []),
    ...(s.poison ? ['poison mode (bad records stored, responses bent)'] : []),
    ...(s.lifecycle.longRounds > 0 ? ['lifecycle: rounds hours apart (lapses come due)'] : []),
    ...(s.staleReadRate > 0 ? ["stale reads (the same poll's writes)"] : []),
    ...(s.staleAcrossPolls > 0 ? ["stale reads across polls (the previous poll's writes)"] : []),
  ];
  return {
    seed: result.seed,
    ok: result.ok,
    failures: result.failures,
    journalEntries: check.journalEntries,
    delivered: check.delivered,
    checked: check.checked,
    duplicates: check.duplicates,
    missing: check.missing.length,
    spurious: check.spurious.length,
    unexplainedDuplicates: check.unexplainedDuplicates.length,
    idConflicts: check.idConflicts.length,
    injected: result.injected,
    polls: result.polls,
    durationMs: result.durationMs,
    traits,
    poison: result.poison,
    lifecycle: {
      checked: result.lifecycle.checked,
      required: result.lifecycle.required,
      missing: result.lifecycle.missing.length,
      spurious: result.lifecycle.spurious.length,
      byType: result.lifecycle.byType,
    },
    operational: {
      checked: result.operational.checked,
      required: result.operational.required,
      missing: result.operational.missing.length,
      spurious: result.operational.spurious.length,
      byType: result.operational.byType,
      failedFirst: failsOperationalPublishes(result.seed),
    },
  };
}
