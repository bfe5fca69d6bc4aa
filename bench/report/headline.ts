/** The headline figures of a run: the medians the report's first table and several sections quote. */
import { median, percentile } from '../stats';
import { med } from './format';
import type { BenchResults } from './results';

const VISIT = 'Member Visit Recorded';

export function headline(r: BenchResults) {
  const mem = r.throughput.memory;
  const typical = r.typical.runs;
  const naive = typical.map((t) => t.naive).filter((n) => n !== undefined);
  const rowsRatio = med(typical, (t) => (t.naive ? t.naive.rowsPerChange / t.rowsPerChange : Number.NaN));
  return {
    pvdPerCoreSec: med(mem, (m) => m.parseValidateDetectPerCpuSec),
    allPerCoreSec: med(mem, (m) => m.recordsPerCpuSec),
    rowsPerSec: med(mem, (m) => m.recordsPerSec),
    dynaliteRowsPerSec: med(r.throughput.dynalite, (m) => m.recordsPerSec),
    freshnessP50: med(typical, (t) => t.freshness.p50),
    freshnessP95: med(typical, (t) => t.freshness.p95),
    freshnessMax: med(typical, (t) => t.freshness.max),
    // Member Visit Recorded, from the visit's time to PutEvents (the fast lane's target).
    visitsP50: med(typical, (t) => t.freshnessByType[VISIT]?.p50 ?? Number.NaN),
    visitsP95: med(typical, (t) => t.freshnessByType[VISIT]?.p95 ?? Number.NaN),
    quotaShare: med(typical, (t) => t.quotaShareBasic),
    rowsPerChange: med(typical, (t) => t.rowsPerChange),
    naiveRowsPerChange: median(naive.map((n) => n.rowsPerChange)),
    rowsRatio,
    requestsPerChange: med(typical, (t) => t.requestsPerChange),
    tokenPerData: med(typical, (t) => t.tokenRequestsPerDataRequest),
    costVariable: r.cost.default.variableTotal,
    lateChangeP95: percentile(
      typical.flatMap((t) => t.lateChanges),
      95,
    ),
    lateChangeN: typical.reduce((n, t) => n + t.lateChanges.length, 0),
    costTotal: r.cost.default.total,
    dispatchMemoryMs: med(r.scale.dispatchMemory, (d) => d.wallMs),
    backfillPagesPerSec: med(r.backfill.resumable, (b) => b.pagesPerSec),
    rawPagesPerSec: med(r.backfill.raw, (b) => b.pagesPerSec),
  };
}
