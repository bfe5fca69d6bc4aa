/**
 * The fast lane's section (issue 37): Member Visit Recorded's freshness with the lane and without
 * it, the quota it takes, and what it adds to the bill, line by line: the same seed's run with the
 * lane off (`typical.laneOff`) against the same seed with it on.
 */
import type { ClubCost } from '../cost';
import type { TypicalClubRun } from '../typical-club';
import { ISSUE_37_TARGET_USD } from './cpu-calibration-section';
import { int, pct, secs, table, usd, yes } from './format';
import { headline } from './headline';
import type { BenchResults } from './results';

const VISIT = 'Member Visit Recorded';

/** Line-by-line difference of two costs (lines present in either), largest first; absent lines cost 0. */
function addedLines(on: ClubCost, off: ClubCost): { item: string; usd: number }[] {
  const offBy = new Map(off.lines.map((l) => [l.key, l.usd]));
  const onBy = new Map(on.lines.map((l) => [l.key, l]));
  const keys = new Set([...onBy.keys(), ...offBy.keys()]);
  return [...keys]
    .map((key) => ({
      item: onBy.get(key)?.item ?? off.lines.find((l) => l.key === key)?.item ?? key,
      usd: (onBy.get(key)?.usd ?? 0) - (offBy.get(key) ?? 0),
    }))
    .filter((l) => Math.abs(l.usd) >= 0.00005)
    .sort((a, b) => b.usd - a.usd);
}

function visits(run: TypicalClubRun | undefined): string {
  const d = run?.freshnessByType[VISIT];
  return d ? `${secs(d.p50)} / ${secs(d.p95)} / ${secs(d.max)}` : '-';
}

/** What the cost target leaves the lane over the bill without it, and how the lane's cost compares. */
function budgetWords(budget: number, lane: number): string {
  const target = `The target (at most ${usd(ISSUE_37_TARGET_USD)} a club-month with the lane)`;
  if (budget <= 0)
    return `${target} is passed by this seed's bill without the lane; the lane adds ${usd(lane)}.`;
  const verdict = lane <= budget ? '**within it**' : `**${(lane / budget).toFixed(1)}× it**`;
  return `${target} leaves the lane ${usd(budget)} over this seed's bill without it; the lane costs ${usd(lane)}: ${verdict}.`;
}

export function fastLaneSection(r: BenchResults): string {
  const off = r.typical.laneOff;
  const on = off ? r.typical.runs.find((t) => t.seed === off.seed) : undefined;
  if (!off || !on || !r.cost.laneOn || !r.cost.laneOff) return '';
  const h = headline(r);
  const added = addedLines(r.cost.laneOn, r.cost.laneOff);
  const total = r.cost.laneOn.total - r.cost.laneOff.total;
  const met = h.visitsP50 <= 10 && h.visitsP95 <= 20;
  const budget = ISSUE_37_TARGET_USD - r.cost.laneOff.total;
  return `## The fast lane for visits (issue 37)

While the club is active its visits are probed every 15, 20 or 30 s between the minute's polls, as
its visits of the last hour are worth (docs/operations.md, "The fast lane for visits"). Member Visit
Recorded, from the visit's time to PutEvents (p50 / p95 / max), and the quota, seed ${off.seed},
${r.plan.simDays} simulated days:

${table(
  [
    'schedule',
    'visits p50 / p95 / max',
    'share of the Basic quota',
    'probes a month',
    'of which opened a session',
  ],
  [
    [
      'fast lane on (default)',
      visits(on),
      pct(on.quotaShareBasic),
      int(on.lane?.probes ?? 0),
      int(on.lane?.sessions ?? 0),
    ],
    ['fast lane off (visits every minute)', visits(off), pct(off.quotaShareBasic), '0', '0'],
  ],
)}

All runs pooled (the medians of ${r.typical.runs.length} seeds): p50 **${secs(h.visitsP50)}**, p95
**${secs(h.visitsP95)}** (targets: p50 ≤ 10 s, p95 ≤ 20 s, stretch ≤ 12 s): ${yes(met)}. Share of the
Basic quota with the lane: ${pct(h.quotaShare)} (target ≤ 50%: ${yes(h.quotaShare <= 0.5)}).

What the lane adds to the club's month, line by line (the same seed on and off, ${int(r.cost.laneOn.fleetClubs)}
clubs; a negative line is work the minute's polls no longer do):

${table(
  ['line', 'added USD a club-month'],
  [...added.map((l) => [l.item, usd(l.usd)]), ['**the fast lane, in all**', `**${usd(total)}**`]],
)}

Everything billed with the lane: ${usd(r.cost.laneOn.total)} (this seed), without: ${usd(r.cost.laneOff.total)}.
${budgetWords(budget, total)}`;
}
