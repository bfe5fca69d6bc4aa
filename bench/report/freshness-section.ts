/** Section 4 of the report: freshness, from a change in the club to its event, by schedule and event type. */
import { median, sum } from '../stats';
import { int, med, pct, secs, sig, table, yes } from './format';
import { headline } from './headline';
import type { BenchResults } from './results';

export function freshnessSection(r: BenchResults): string {
  const t = r.typical.runs;
  return `## 4. Freshness

Delay between a change in the sandbox (its journal entry's \`at\`) and the publication of the event
that reports it, in simulated time: the sandbox clock moves in steps of the schedule rate
(${r.deployment.scheduleRateMinutes} min), and an event published during a poll is stamped with the
poll's simulated start plus the poll's real elapsed time. Every event was matched with its journal
entry (unmatched events: ${int(sum(t.map((x) => x.freshness.unmatchedEvents)))}; changes still without
an event after 2 hours at the end: ${int(sum(t.map((x) => sum(Object.values(x.freshness.overdue)))))};
status changes superseded by a later one before any poll saw them, which polling cannot report:
${int(sum(t.map((x) => x.freshness.superseded)))}).

![Freshness distribution](charts/freshness.svg)

${scheduleTable(r)}

${freshnessTarget(r)}

By event type (all runs pooled; p50 / p95 / max):

${eventTypeTable(r)}
`;
}

function scheduleTable(r: BenchResults): string {
  const h = headline(r);
  const alt = r.typical.unconfirmedZone;
  return table(
    ['schedule', 'p50', 'p95', 'max', 'share of the Basic quota'],
    [
      [
        `**default** (engine/schedule/scheduling.ts, dispatch every ${r.deployment.scheduleRateMinutes} min), median of ${r.typical.runs.length} runs`,
        secs(h.freshnessP50),
        `**${secs(h.freshnessP95)}**`,
        secs(h.freshnessMax),
        `**${pct(h.quotaShare)}**`,
      ],
      [
        `zone reading not confirmed (${r.plan.altScheduleHours} h, for comparison)`,
        secs(alt.freshness.p50),
        secs(alt.freshness.p95),
        secs(alt.freshness.max),
        pct(alt.quotaShareBasic),
      ],
    ],
  );
}

/** Whether the target is met (default schedule, unconfirmed zone) and what bounds freshness. */
function freshnessTarget(r: BenchResults): string {
  const t = r.typical.runs;
  const h = headline(r);
  const alt = r.typical.unconfirmedZone;
  const met = h.freshnessP95 < 90 && h.quotaShare <= 0.5;
  const altMet = alt.freshness.p95 < 90 && alt.quotaShareBasic <= 0.5;
  return `Target: p95 under 90 s at a schedule using at most half of the Basic quota: ${yes(met)} at the
default schedule${met ? '' : ` (p95 ${secs(h.freshnessP95)} while using only ${pct(h.quotaShare)} of the quota)`}; a club
whose zone reading is not confirmed ${altMet ? 'meets it too' : 'does not meet it'} (p95 ${secs(alt.freshness.p95)} at ${pct(alt.quotaShareBasic)} of the quota).
**What bounds freshness: the schedule**, not the API or the CPU (a poll takes
${sig(med(t, (x) => x.poll.wallMsMedian))} ms locally, median; p95 ${sig(med(t, (x) => x.poll.wallMsP95))} ms).
Every source is polled every minute (engine/schedule/scheduling.ts); some changes are only visible to a
sweep: a dishonoured payment keeps its old PaymentDate (found by the sweeps of its last 6 days the
unused quota pays for every few minutes, or the hourly 10-day sweep, hence Payment Failed's longer
tail), a refund likewise.`;
}

/** Every run's distribution per event type, pooled: events summed, p50 and p95 the median, max the max. */
function eventTypeTable(r: BenchResults): string {
  const types = new Map<string, number[][]>();
  for (const run of r.typical.runs)
    for (const [k, d] of Object.entries(run.freshnessByType)) {
      const list = types.get(k) ?? [];
      list.push([d.n, d.p50, d.p95, d.max]);
      types.set(k, list);
    }
  return table(
    ['event', 'events', 'p50', 'p95', 'max'],
    [...types.entries()]
      .map(
        ([k, rows]) =>
          [
            k,
            sum(rows.map((x) => x[0]!)),
            median(rows.map((x) => x[1]!)),
            median(rows.map((x) => x[2]!)),
            Math.max(...rows.map((x) => x[3]!)),
          ] as const,
      )
      .sort((a, b) => b[1] - a[1])
      .map(([k, n, p50, p95, max]) => [k, int(n), secs(p50), secs(p95), secs(max)]),
  );
}
