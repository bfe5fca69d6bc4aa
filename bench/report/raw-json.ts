/** docs/benchmarks.json: the keys compared run to run first, then every figure the report was made from. */
import { byLine } from '../cost';
import { tableCapacityOf } from '../cost-dynamo-lines';
import { DOUBLE_RECORDS, firstBatchPeakMb } from '../invocation-memory';
import { unitsSource } from '../units-check';
import { headline } from './headline';
import type { BenchResults } from './results';

/** The poll function's peak for the first poll of a full batch, at both record sizes (issue 32). */
function memoryKeys(r: BenchResults) {
  const m = r.scale.invocationMemory;
  const peak = (scale: number) => {
    const mb = firstBatchPeakMb(m, scale);
    return mb === undefined ? undefined : Math.round(mb * 10) / 10;
  };
  const firstBatchPeakRssMb = peak(1);
  const firstBatchDoubleRecordsPeakRssMb = peak(DOUBLE_RECORDS);
  if (firstBatchPeakRssMb === undefined || firstBatchDoubleRecordsPeakRssMb === undefined) return {};
  return {
    memory: {
      functionMb: m?.functionMb,
      budgetMb: m?.budgetMb,
      firstBatchPeakRssMb,
      firstBatchDoubleRecordsPeakRssMb,
    },
  };
}

/** The JSON of every run, without the bulky per-poll arrays. */
export function rawJson(r: BenchResults): string {
  const fleet = {
    ...r.scale.fleet,
    // Rendering again from this JSON (--render) finds `polls` instead of the per-poll times (and
    // writes it where a run writes it, so a JSON rendered again reads as the run's).
    minutes: r.scale.fleet.minutes.map((minute) => {
      const { pollWallMs, polls, ...m } = minute as typeof minute & { polls?: number };
      return { ...m, pollWallMs: [], polls: pollWallMs?.length || polls || 0 };
    }),
  };
  const f = r.scale.atScale;
  const h = headline(r);
  // The keys compared run to run (issue 10): first, then everything the report was made from.
  const keys = {
    costPerClubMonthUsd: {
      fleetClubs: r.cost.default.fleetClubs,
      everythingBilled: r.cost.default.total,
      byLine: byLine(r.cost.default),
      tableCapacity: tableCapacityOf(r.deployment),
      byFleet: Object.fromEntries(r.cost.byFleet.map(({ clubs, cost }) => [clubs, cost.total])),
      ...unitsSource(r.units),
    },
    freshness: {
      p95Seconds: h.freshnessP95,
      visits: { p50Seconds: h.visitsP50, p95Seconds: h.visitsP95 },
      lateChangeP95Seconds: h.lateChangeP95,
      lateChanges: h.lateChangeN,
    },
    quota: { basicShare: h.quotaShare },
    // How the bench machine's CPU maps to Lambda arm64, and the range of the Lambda lines (issue 37).
    ...(r.cpuCalibration ? { cpuCalibration: r.cpuCalibration } : {}),
    ...memoryKeys(r),
    ...(r.lifecycle
      ? {
          lifecycleAdded: {
            addedApiRequests: r.lifecycle.added.apiRequests,
            addedCostPerClubMonthUsd: r.lifecycle.usd.total,
            addedCostPerClubMonthUsdBound: r.lifecycle.usd.totalBound,
            // Once a club, at its first evaluation (absent in reports from before it).
            ...(r.lifecycle.oneOff
              ? { visitHistoryRequestsOnce: r.lifecycle.oneOff.visitHistoryRequests }
              : {}),
            // The table's mode the added units were priced in (before the setting: on demand).
            tableCapacity: r.lifecycle.pricedAs?.mode ?? 'on-demand',
          },
        }
      : {}),
    // The keys compared run to run of issue 35 first in it (webhooks.endpoints, .costPerMillionUsd, ...).
    ...(r.webhooks ? { webhooks: r.webhooks } : {}),
  };
  // The keys compared run to run (issue 20), then everything the section was made from.
  const scale = {
    clubs: f.clubs,
    dispatchShards: f.dispatchShards,
    dispatchSeconds: f.dispatchSeconds,
    dispatchTimeoutSeconds: f.dispatchTimeoutSeconds,
    pollConcurrencyNeeded: f.pollConcurrencyNeeded,
    pollConcurrencyConfigured: f.pollConcurrencyConfigured,
    measured: f.measured,
    minuteShape: { fleet: r.scale.fleet.minuteShape, ...(f.minuteShape ? { atScale: f.minuteShape } : {}) },
    ...r.scale,
    fleet,
  };
  // Results read back from a benchmarks.json (--render, --only) carry the keys as they were then:
  // those made here from the figures win.
  const figures = Object.fromEntries(Object.entries(r).filter(([key]) => !(key in keys)));
  return `${JSON.stringify({ ...keys, ...figures, scale }, null, 2)}\n`;
}
