/** Section 6 of the report: the dispatcher over many clubs, an hour of a fleet, and the 5,000-club fleet. */
import type { DispatchRun } from '../scale/dispatch';
import { median } from '../stats';
import { int, med, pct, secs, sig, table } from './format';
import type { BenchResults } from './results';

export function scaleSection(r: BenchResults): string {
  return `## 6. Scale

${dispatchPart(r)}

${fleetHourPart(r)}

${fleet5000Part(r)}

50,000 clubs are on paper in [scale.md](scale.md).
`;
}

function dispatchRow(label: string, runs: readonly DispatchRun[]): string[] {
  return [
    label,
    int(runs[0]?.clubs ?? 0),
    `${sig(med(runs, (x) => x.wallMs))} ms`,
    `${sig(med(runs, (x) => x.cpuMs))} ms`,
    int(med(runs, (x) => x.messages)),
    int(med(runs, (x) => x.sendMessageBatchRequests)),
    int(med(runs, (x) => x.tableReads)),
    int(med(runs, (x) => x.readUnits)),
  ];
}

/** `dispatchDueClubs` in memory and on dynalite. */
function dispatchPart(r: BenchResults): string {
  const s = r.scale;
  const mem = s.dispatchMemory;
  const dyn = s.dispatchDynalite.runs;
  const clubsDyn = dyn[0]?.clubs ?? 0;
  const dynPerClub = med(dyn, (x) => x.wallMs) / Math.max(1, clubsDyn);
  return `**Dispatch** (the real \`dispatchDueClubs\`): ${int(mem[0]?.clubs ?? 0)} clubs whose 8 cursors are copies of the
typical club's at the end of a simulated run, each club last polled 0 to 14 minutes before.

${table(
  ['', 'clubs', 'time (median)', 'CPU', 'SQS messages', 'SendMessageBatch', 'table reads', 'RRU'],
  [
    dispatchRow('in memory (MemoryClubRegistry + MemoryStateStore)', mem),
    dispatchRow('dynalite (DynamoDbClubRegistry + DynamoDbStateStore)', dyn),
  ],
)}

The dispatcher reads the club directory, then a hundred club state items per BatchGetItem: at
${int(mem[0]?.clubs ?? 0)} clubs that is ${int(med(mem, (x) => x.tableReads))} requests a minute. Against
dynalite ${int(clubsDyn)} clubs took ${sig(med(dyn, (x) => x.wallMs) / 1000)} s (${sig(dynPerClub)} ms per club,
bounded by dynalite); linearly, 5,000 clubs would take about ${sig((dynPerClub * 5000) / 1000)} s there, within the
dispatch Lambda's ${r.deployment.dispatch.timeoutSec} s timeout and the one-minute period. (Seeding dynalite with the clubs took
${sig(s.dispatchDynalite.seedMs / 1000)} s and is not part of the figure.)`;
}

/** A simulated hour of typical clubs through the poll path. */
function fleetHourPart(r: BenchResults): string {
  const f = r.scale.fleet;
  return `**A simulated hour of ${f.clubs} typical clubs** (${int(r.plan.fleet.members)} members, ~${int(r.plan.fleet.visitsPerDay)} visits a day
each, one sandbox process serving all of them) through the poll path, ${f.workers} workers (the prod
maximum concurrency of the poll Lambda, from lib/), dispatch every simulated minute:

${table(
  ['', 'value'],
  [
    ['poll invocations in the hour', int(f.polls)],
    [
      'per minute (median / max)',
      `${int(median(f.minutes.map((m) => m.messages)))} / ${int(Math.max(...f.minutes.map((m) => m.messages)))}`,
    ],
    ['API requests / rows / events', `${int(f.requests)} / ${int(f.rows)} / ${int(f.events)}`],
    ['poll time, local (median / p95)', `${sig(f.pollWallMsMedian)} ms / ${sig(f.pollWallMsP95)} ms`],
    [
      "time to drain a minute's messages (median / max)",
      `${sig(median(f.minutes.map((m) => m.drainWallMs)))} ms / ${sig(Math.max(...f.minutes.map((m) => m.drainWallMs)))} ms`,
    ],
    [
      'bridge CPU for the hour',
      `${sig(f.cpuMs / 1000)} s (${sig(f.cpuMs / Math.max(1, f.polls))} ms per poll)`,
    ],
    ['sandbox CPU for the hour', `${sig(f.sandboxCpuMs / 1000)} s`],
    ['failures', int(f.failures)],
    ['baseline of all clubs (once, before the hour)', secs(f.baselineWallMs / 1000)],
  ],
)}`;
}

/** The 5,000-club fleet: dispatch at the Lambda's CPU share, poll concurrency, account quotas. */
function fleet5000Part(r: BenchResults): string {
  const big = r.scale.fleet5000;
  return `**The fleet of ${int(big.clubs)} clubs** (the real \`dispatchDueClubs\` over club state items, in
memory, with the typical club's cursors; the poll side from the measured invocation time):

${table(
  ['', 'value'],
  [
    [
      `dispatch at the CPU share of ${r.deployment.dispatch.memoryMb} MB (× ${sig(big.cpuStretch)})`,
      `**${sig(big.dispatchSeconds)} s** of a ${big.dispatchTimeoutSeconds} s timeout (${sig(big.dispatchCpuMs)} ms CPU on a whole core, ${int(big.readRequests)} table requests at 10 ms)`,
    ],
    [
      'poll messages queued',
      `${int(big.messages)} in ${int(big.sendMessageBatchRequests)} SendMessageBatch requests`,
    ],
    [
      'first messages handed to the queue',
      `at ${pct(big.firstSendShare)} of the run (each hundred is sent while the next is read)`,
    ],
    [
      'a run stopped half-way (its deadline at half its time)',
      `${int(big.halfDeadline.messages)} messages queued, ${int(big.halfDeadline.notReached)} clubs left for the next minute`,
    ],
    [
      'poll concurrency needed / configured for this many clubs',
      `**${sig(big.pollConcurrencyNeeded)}** / ${int(big.pollConcurrencyConfigured)} (${int(Math.ceil(big.clubs / r.deployment.pollBatchSize))} invocations a minute × ${sig(big.pollInvocationSeconds)} s each / 60; configured = \`pollConcurrencyFor\`, docs/deploy.md)`,
    ],
    [
      'PutEvents requests a second / account quota',
      `${sig(big.rates.putEventsRequestsPerSecond)} / ${int(big.rates.putEventsQuotaPerSecond)} (us-east-1 default; lower in smaller regions)`,
    ],
    [
      'GetSecretValue a second / quota',
      `${sig(big.rates.getSecretValuePerSecond)} / ${int(big.rates.getSecretValueQuotaPerSecond)}`,
    ],
    [
      'most requests one DynamoDB key gets a minute',
      `${big.maxRequestsPerKeyPerMinute} (a club's state item: read by the dispatcher, opened and closed by its poll); no key is shared by the clubs but the club directory, read once a minute`,
    ],
  ],
)}`;
}
