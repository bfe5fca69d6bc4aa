/** The report's webhook section (issue 35): latency, isolation and cost of signed deliveries. */
import type { CostLine } from '../cost-model';
import type { RunSummary, WebhookFigures } from '../steps/webhooks-step';
import type { DurationModel } from '../webhooks/webhook-cost';
import { int, pct, secs, sig, table, usd, yes } from './format';
import type { BenchResults } from './results';

export const WEBHOOK_TARGETS = {
  costPerMillionUsd: 1,
  p95Seconds: 2,
  /** "Unchanged" with dead endpoints: the p95 at most this much above the healthy run's. */
  deadSlack: 0.25,
} as const;

/** The p95 with dead endpoints counts as unchanged when within 25% (or 0.25 s) of the healthy one. */
export const unchanged = (w: WebhookFigures) =>
  w.p95SecondsWithDeadEndpoints <=
  Math.max(w.p95Seconds * (1 + WEBHOOK_TARGETS.deadSlack), w.p95Seconds + 0.25);

/** The headline table's webhook rows. */
export function webhookHeadlineRows(r: BenchResults): string[][] {
  const w = r.webhooks;
  if (!w) return [];
  return [
    [
      'webhooks: cost per million deliveries, everything billed',
      usd(w.costPerMillionUsd),
      '≤ $1',
      yes(w.costPerMillionUsd <= WEBHOOK_TARGETS.costPerMillionUsd),
    ],
    [
      `webhooks: p95 publish → 2xx, ${int(w.deliveriesPerSecond)} deliveries/s over ${int(w.endpoints)} endpoints`,
      secs(w.p95Seconds),
      '< 2 s',
      yes(w.p95Seconds < WEBHOOK_TARGETS.p95Seconds),
    ],
    [
      `webhooks: the same p95 with ${int(w.deadEndpoints)} endpoints dead`,
      secs(w.p95SecondsWithDeadEndpoints),
      'unchanged (within 25%)',
      yes(unchanged(w)),
    ],
    [
      'webhooks: added per club-month, one endpoint subscribed to everything',
      usd(w.addedCostPerClubMonthUsd),
      '',
      '',
    ],
  ];
}

const costRows = (lines: readonly CostLine[]) => lines.map((l) => [l.item, l.formula, usd(l.usd)]);

function runRows(h: RunSummary, d: RunSummary): string[][] {
  const both = (f: (x: RunSummary) => string) => [f(h), f(d)];
  return [
    [
      'events published / deliveries due to live endpoints',
      ...both((x) => `${int(x.events)} / ${int(x.due)}`),
    ],
    ['delivered (first 2xx) / duplicates', ...both((x) => `${int(x.delivered)} / ${int(x.duplicates)}`)],
    [
      'to an endpoint whose filter does not take it / unverified',
      ...both((x) => `${x.unmatched} / ${x.unverified}`),
    ],
    [
      'publish → 2xx, p50 / p95 / p99 / max',
      ...both(
        (x) =>
          `${secs(x.latency.p50)} / ${secs(x.latency.p95)} / ${secs(x.latency.p99)} / ${secs(x.latency.max)}`,
      ),
    ],
    [
      'ingest queue → 2xx, p50 / p95',
      ...both((x) => `${secs(x.latencyFromQueue.p50)} / ${secs(x.latencyFromQueue.p95)}`),
    ],
    [
      'fan-out invocations (records each) / peak concurrency',
      ...both(
        (x) =>
          `${int(x.window.fanOut.invocations)} (${sig(x.window.fanOut.records / Math.max(1, x.window.fanOut.invocations))}) / ${x.window.fanOut.peakConcurrency}`,
      ),
    ],
    [
      'delivery invocations (records each) / peak concurrency',
      ...both(
        (x) =>
          `${int(x.window.deliver.invocations)} (${sig(x.window.deliver.records / Math.max(1, x.window.deliver.invocations))}) / ${x.window.deliver.peakConcurrency}`,
      ),
    ],
    [
      'delivery invocation, local wall p50 / p95',
      ...both((x) => `${int(x.window.deliver.durationMs.p50)} / ${int(x.window.deliver.durationMs.p95)} ms`),
    ],
    [
      'attempts, local p50 / p95',
      ...both((x) => `${int(x.window.deliver.attempts.p50Ms)} / ${int(x.window.deliver.attempts.p95Ms)} ms`),
    ],
    [
      'failed attempts by kind',
      ...both(
        (x) =>
          Object.entries(x.window.deliver.failures)
            .map(([k, n]) => `${k} ${n}`)
            .join(', ') || 'none',
      ),
    ],
    [
      'connections to receivers / held unanswered by dead ones',
      ...both((x) => `${int(x.window.receivers.connections)} / ${int(x.window.receivers.heldByDead)}`),
    ],
    ['machine load average (1 min) at the end', ...both((x) => sig(x.loadAverage[0] ?? Number.NaN))],
  ];
}

const modelRow = (name: string, m: DurationModel) => [
  name,
  `${sig(m.cpuMs)} ms × ${sig(m.cpuShare)}`,
  `${sig(m.callsMs)} ms`,
  `${sig(m.attemptsMs)} ms`,
  `**${sig(m.modelledMs)} ms**`,
  `${sig(m.measuredMs)} ms`,
];

export function webhooksSection(r: BenchResults): string {
  const w = r.webhooks;
  if (!w) return '## Webhooks\n\nNot measured in this run (a report from before webhook delivery).\n';
  const a = w.assumptions;
  const c = w.cost;
  return `## Webhooks (issue 35)

The deployed delivery path run on this machine (bench/webhooks/, \`npm run bench -- --only webhooks\`
for this section alone): the real fan-out and delivery handlers, each function in a process of its
own with the template's environment, batch size (${w.deployment.deliver.batchSize}), memory
(${w.deployment.deliver.memoryMb} MB) and maximum concurrency (fan-out ${w.deployment.fanOut.maxConcurrency},
delivery ${w.deployment.deliver.maxConcurrency}), invoked by an emulation of Lambda's SQS event
source (5 pollers, more while batches come full, long polls of 20 s); SQS fair queues
(MessageGroupId = endpoint) and Secrets Manager served locally, the webhook table in dynalite, all
in a process of their own, every request counted where it is answered. ${int(w.endpoints)} endpoints
were added with the library, endpoint i covering club-i (8 in 10 take every detail-type, 1 in 10 the
billing ones, 1 in 10 dishonoured payments only: a pattern on \`detail\`); each has an HTTPS receiver
of its own on 127.0.0.1 that verifies every request with the official \`standardwebhooks\` package
and answers 204 after ${a.receiverAnswerMs} ms. The events are the typical club's own
(${int(w.pool.events)} from ${sig(w.pool.hours)} simulated hours of its afternoon), published for
the ${int(w.endpoints)} clubs with Poisson arrivals at ${int(w.deliveriesPerSecond)} deliveries a second,
each put on the ingest queue ${a.busToQueueMs} ms after its publish (EventBridge's rule to SQS:
stated, not measurable here). Run 1: every receiver answers (${w.healthy.options.warmupSec} s warm-up,
${w.healthy.options.measureSec} s measured); run 2: ${int(w.deadEndpoints)} of them (all taking every
event) dead from its start for ${w.dead.options.measureSec} s: they accept a connection and never
answer, so each attempt lasts the 15 s deadline. Latency is timed from the publish to the 2xx of
each event published in the measured window, live endpoints only.

${table(['', 'every receiver answers', `${int(w.deadEndpoints)} endpoints dead`], runRows(w.healthy, w.dead))}

Targets: p95 under 2 s: ${yes(w.p95Seconds < WEBHOOK_TARGETS.p95Seconds)}; with dead endpoints
unchanged (within 25% or 0.25 s): ${yes(unchanged(w))}. The machine is shared (load average above): a
busy machine stretches every local time, the measured latency included.

### Cost per million deliveries

Everything billed, from the counts of run 1's measured window (${int(c.deliveries)} deliveries in
${sig(w.healthy.window.seconds)} s, after the warm-up: caches filled), Lambda durations modelled
as in section 5 (measured CPU at the function's CPU share, the stated latency of each call, and the
invocation's longest chain of attempts to one endpoint at ${a.receiverAnswerMs} ms plus one round trip
of ${a.receiverRttMs} ms, two more when a connection is opened):

${table(['line', 'formula (per million deliveries)', 'usd'], [...costRows(c.perMillion.lines), ['**everything billed**', '', `**${usd(c.perMillion.total)}**`]])}

Target at most $1: ${yes(c.perMillion.total <= WEBHOOK_TARGETS.costPerMillionUsd)}. Priced from run 2 (the dead
endpoints' timeouts billed): ${usd(w.costWithDeadEndpoints.perMillion.total)} per million deliveries.

${table(['an average invocation', 'CPU × share', 'calls', 'attempts', 'modelled', 'measured here'], [modelRow('fan-out', c.duration.fanOut), modelRow('delivery', c.duration.deliver)])}

The CPU is the function's process over the run divided by its invocations, the event source's
polling included (an upper bound).

### Fixed monthly, and the typical club

${table(['line', 'formula', 'usd a month'], [...costRows(c.fixedMonthly.lines), ['**fixed**', '', `**${usd(c.fixedMonthly.total)}**`]])}

One endpoint subscribed to everything at the typical club (${int(w.club.eventsPerDay)} events a day,
section 3): ${int(w.club.deliveriesPerMonth)} deliveries a month at the variable cost per delivery of run 1
(${usd(w.club.variableUsd)}) plus the fixed costs spread over ${int(w.club.clubs)} clubs
(${usd(w.club.fixedShareUsd)}): **${usd(w.club.totalUsd)}** a club-month, ${pct(w.club.totalUsd / Math.max(1e-9, r.cost.default.total))} of the
cost per club of section 5. The 4 webhook alarms and 7 metric names are deployed whatever the
endpoints: a full bench run counts them in section 5 too (its template has them).

Stated, not measured: ${Object.entries(a)
    .map(([k, v]) => `${k} ${v}`)
    .join(
      ', ',
    )}. Not modelled: Lambda's cold starts (${w.healthy.window.deliver.containers} delivery containers here,
their INIT billed once each), the receivers' own network beyond the round trips, SQS's second
fair-queue measure (processing-time share).
`;
}
