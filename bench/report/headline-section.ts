/** The report's first table: each headline figure, its target and whether it is met. */
import { ISSUE_37_TARGET_USD } from './cpu-calibration-section';
import { int, pct, secs, sig, table, usd, yes } from './format';
import { headline } from './headline';
import type { BenchResults } from './results';
import { webhookHeadlineRows } from './webhooks-section';

/** The state table's mode the cost was priced in: "table on demand" or "table provisioned at 70%". */
const tableModeWords = (r: BenchResults) => {
  const t = r.deployment.tableCapacity;
  return t?.mode === 'provisioned'
    ? `table provisioned at ${t.read.targetUtilizationPercent}%`
    : 'table on demand';
};

type Headline = ReturnType<typeof headline>;

export function headlineTable(r: BenchResults): string {
  const h = headline(r);
  return table(
    ['figure', 'measured', 'target', ''],
    [...engineRows(h), ...clubRows(r, h), ...scaleRows(r, h), ...webhookHeadlineRows(r)],
  );
}

/** Throughput of the engine and what it fetches per change. */
function engineRows(h: Headline): string[][] {
  return [
    [
      'parse + validate + detect, in memory',
      `${int(h.pvdPerCoreSec)} rows/s per core`,
      '≥ 20,000 rows/s per core',
      yes(h.pvdPerCoreSec >= 20_000),
    ],
    [
      'whole backfill pipeline, in memory / dynalite',
      `${int(h.rowsPerSec)} / ${int(h.dynaliteRowsPerSec)} rows/s`,
      '',
      '',
    ],
    [
      'rows fetched per detected change, vs naive',
      `${sig(h.rowsPerChange)} vs ${sig(h.naiveRowsPerChange)} (${sig(h.rowsRatio)}× fewer)`,
      '≥ 100× fewer',
      yes(h.rowsRatio >= 100),
    ],
    ['API requests per detected change', sig(h.requestsPerChange), '', ''],
    ['token requests per data request', sig(h.tokenPerData, 2), '', ''],
  ];
}

/** The typical club: freshness, quota and cost. */
function clubRows(r: BenchResults, h: Headline): string[][] {
  return [
    [
      'freshness p50 / p95 / max (default schedule)',
      `${secs(h.freshnessP50)} / ${secs(h.freshnessP95)} / ${secs(h.freshnessMax)}`,
      'p95 < 90 s',
      yes(h.freshnessP95 < 90 && h.quotaShare <= 0.5),
    ],
    [
      'Member Visit Recorded, visit to PutEvents, p50 / p95 (the fast lane)',
      `${secs(h.visitsP50)} / ${secs(h.visitsP95)}`,
      'p50 ≤ 10 s, p95 ≤ 20 s (stretch ≤ 12 s)',
      yes(h.visitsP50 <= 10 && h.visitsP95 <= 20),
    ],
    ['share of the Basic quota at that schedule', pct(h.quotaShare), '≤ 50%', yes(h.quotaShare <= 0.5)],
    [
      'late changes (dishonour, refund) detected, p95',
      `${secs(h.lateChangeP95)} (n = ${int(h.lateChangeN)})`,
      '< 10 min',
      yes(h.lateChangeP95 < 600),
    ],
    [
      `cost per club per month, everything billed (${int(r.cost.default.fleetClubs)} clubs, ${tableModeWords(r)})`,
      usd(h.costTotal),
      '≤ $0.30 with the fast lane (issue 37; before it: ≤ $0.25)',
      yes(h.costTotal <= ISSUE_37_TARGET_USD),
    ],
  ];
}

/** The fleet: dispatch, poll concurrency, backfill speed. */
function scaleRows(r: BenchResults, h: Headline): string[][] {
  const big = r.scale.atScale;
  return [
    [
      `dispatch of ${int(big.clubs)} clubs in ${big.dispatchShards} shards at the CPU share of ${big.dispatch.memoryMb} MB (slowest shard, measured)`,
      `${sig(big.dispatchSeconds)} s of ${big.dispatchTimeoutSeconds} s`,
      'well inside the timeout',
      yes(big.dispatchSeconds < big.dispatchTimeoutSeconds / 2),
    ],
    [
      `poll concurrency ${int(big.clubs)} clubs need / the stage configures for them`,
      `${sig(big.pollConcurrencyNeeded)} / ${int(big.pollConcurrencyConfigured)}`,
      'needed ≤ configured',
      yes(big.pollConcurrencyNeeded <= big.pollConcurrencyConfigured),
    ],
    [
      `dispatch of ${int(r.scale.dispatchMemory[0]?.clubs ?? 0)} clubs (in memory)`,
      `${sig(h.dispatchMemoryMs)} ms`,
      '',
      '',
    ],
    [
      'resumable backfill vs the sandbox alone',
      `${sig(h.backfillPagesPerSec)} vs ${sig(h.rawPagesPerSec)} pages/s`,
      '',
      '',
    ],
  ];
}
