/** The report's webhook section (issue 35): latency, isolation and cost of signed deliveries. */
import type { CostLine } from '../cost-model';
import type { RunSummary, WebhookFigures } from '../steps/webhooks-step';
import type { DurationModel, WebhookCost } from '../webhooks/webhook-cost';
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

/** Met or not, or not measured at the planned rate (this machine could not keep up with it). */
const atRate = (w: WebhookFigures, ok: boolean) =>
  w.deliveriesPerSecond < w.plannedDeliveriesPerSecond
    ? `${yes(ok)} at ${sig(w.deliveriesPerSecond)}/s; **not measured at ${int(w.plannedDeliveriesPerSecond)}/s** here`
    : yes(ok);

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
      `webhooks: p95 publish → 2xx, ${sig(w.deliveriesPerSecond)} deliveries/s over ${int(w.endpoints)} endpoints`,
      secs(w.p95Seconds),
      `< 2 s at ${int(w.plannedDeliveriesPerSecond)}/s`,
      atRate(w, w.p95Seconds < WEBHOOK_TARGETS.p95Seconds),
    ],
    [
      `webhooks: the same p95 with ${int(w.deadEndpoints)} endpoints dead`,
      secs(w.p95SecondsWithDeadEndpoints),
      'unchanged (within 25%)',
      atRate(w, unchanged(w)),
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

function runRows(runs: readonly RunSummary[]): string[][] {
  const row = (label: string, f: (x: RunSummary) => string) => [label, ...runs.map(f)];
  const per = (n: number, d: number) => sig(n / Math.max(1, d));
  return [
    row('events published / deliveries due to live endpoints', (x) => `${int(x.events)} / ${int(x.due)}`),
    row('delivered (first 2xx) / duplicates', (x) => `${int(x.delivered)} / ${int(x.duplicates)}`),
    row(
      'to an endpoint whose filter does not take it / unverified',
      (x) => `${x.unmatched} / ${x.unverified}`,
    ),
    row('publish → 2xx here, p50 / p95 / p99 / max', (x) =>
      [x.latency.p50, x.latency.p95, x.latency.p99, x.latency.max].map(secs).join(' / '),
    ),
    row(
      'ingest queue → 2xx here, p50 / p95',
      (x) => `${secs(x.latencyFromQueue.p50)} / ${secs(x.latencyFromQueue.p95)}`,
    ),
    row(
      'warm-up (dead endpoints: as they die), p95',
      (x) => `${secs(x.latencyWarmup.p95)} (n = ${int(x.latencyWarmup.n)})`,
    ),
    row(
      'window: fan-out invocations (records each) / peak concurrency',
      (x) =>
        `${int(x.window.fanOut.invocations)} (${per(x.window.fanOut.records, x.window.fanOut.invocations)}) / ${x.window.fanOut.peakConcurrency}`,
    ),
    row('delivered by the fan-out (first attempt) / by the delivery function', (x) =>
      x.deliveredBy
        ? `${int(x.deliveredBy.fanOut)} / ${int(x.deliveredBy.deliver)}`
        : 'n/a (the delivery function only)',
    ),
    row(
      'window: fan-out invocation here, p50 / p95',
      (x) => `${int(x.window.fanOut.durationMs.p50)} / ${int(x.window.fanOut.durationMs.p95)} ms`,
    ),
    row(
      'window: delivery invocations (records each) / peak concurrency',
      (x) =>
        `${int(x.window.deliver.invocations)} (${per(x.window.deliver.records, x.window.deliver.invocations)}) / ${x.window.deliver.peakConcurrency}`,
    ),
    row(
      'window: delivery invocation here, p50 / p95',
      (x) => `${int(x.window.deliver.durationMs.p50)} / ${int(x.window.deliver.durationMs.p95)} ms`,
    ),
    row(
      'window: attempts (fan-out / delivery function), p50 / p95 here',
      (x) =>
        `${int(x.window.fanOut.attempts.n)} / ${int(x.window.deliver.attempts.n)}; ${int(x.window.fanOut.attempts.p50Ms)} / ${int(x.window.fanOut.attempts.p95Ms)} ms, ${int(x.window.deliver.attempts.p50Ms)} / ${int(x.window.deliver.attempts.p95Ms)} ms`,
    ),
    row('window: attempts failed (or handed off) by kind, fan-out; delivery function', (x) =>
      [x.window.fanOut.failures, x.window.deliver.failures]
        .map(
          (f) =>
            Object.entries(f)
              .map(([k, n]) => `${k} ${n}`)
              .join(', ') || 'none',
        )
        .join('; '),
    ),
    row(
      'window: connections / held unanswered by dead endpoints',
      (x) => `${int(x.window.receivers.connections)} / ${int(x.window.receivers.heldByDead)}`,
    ),
    row(
      'window: cores the emulation used (all its processes) / load average',
      (x) =>
        `${sig(Object.values(x.window.cpuMs).reduce((a, b) => a + b, 0) / 1000 / x.window.seconds)} / ${sig(x.loadAverage[0] ?? Number.NaN)}`,
    ),
  ];
}

const modelRow = (name: string, m: DurationModel) => [
  name,
  `${sig(m.cpuMs)} ms × ${sig(m.cpuShare)}`,
  `${sig(m.callsMs)} ms`,
  `${sig(m.attemptsMs)} ms`,
  `**${sig(m.modelledMs)} ms**`,
  `${sig(m.measuredMs)} ms`,
  m.cpuLoad === undefined ? 'n/a' : pct(m.cpuLoad),
];

/** What the CPU share adds to a delivery the fan-out made, and to one the delivery function made. */
const addsOf = (w: WebhookFigures) => {
  const adds = w.latency.cpuShareAddsSec as WebhookFigures['latency']['cpuShareAddsSec'] | number;
  return typeof adds === 'number' ? { fanOut: adds, deliver: adds } : adds;
};

function introduction(w: WebhookFigures): string {
  const a = w.assumptions;
  const tries = w.attempts
    .map((t) => `${sig(t.rate)}/s: ${t.kept ? 'kept up' : 'did not keep up'} (${sig(t.cores)} cores)`)
    .join('; ');
  const m = w.machine;
  return `Measured ${m.date.slice(0, 16).replace('T', ' ')} UTC on ${m.cpuModel}, ${m.cores} cores, ${m.memoryGb} GB,
Node ${m.node}, commit \`${m.commit}\`${m.uncommittedRuntimeChanges ? ' (with uncommitted changes in lambdas/ or lib/)' : ''}; load average at the start
${w.loadAverageAtStart.map((l) => sig(l, 2)).join(' / ')} (1 / 5 / 15 min), the machine shared with other work.

The deployed delivery path run on this machine (bench/webhooks/, \`npm run bench -- --only webhooks\`
for this section alone): the real fan-out and delivery handlers, each function in a process of its
own with the template's environment, batch size (${w.deployment.deliver.batchSize}), memory
(${w.deployment.deliver.memoryMb} MB) and maximum concurrency (fan-out ${w.deployment.fanOut.maxConcurrency},
delivery ${w.deployment.deliver.maxConcurrency}), invoked by an emulation of Lambda's SQS event source
(5 pollers, more while batches come full, long polls of 20 s, the template's batching windows:
fan-out ${w.deployment.fanOut.batchingWindowSec} s, delivery ${w.deployment.deliver.batchingWindowSec} s). The fan-out
makes the first attempt of each delivery to a healthy endpoint under its rate itself (a 2 s budget,
then handed to the delivery queue); the delivery function makes the others (retries, paced,
held to the queue, circuit open); SQS fair queues (MessageGroupId = endpoint), Secrets Manager,
EventBridge and the webhook table (dynalite) in a process of their own, every request counted where
it is answered. ${int(w.endpoints)} endpoints were added with the library, endpoint i covering club-i
(8 in 10 take every detail-type, 1 in 10 the billing ones, 1 in 10 dishonoured payments only: a
pattern on \`detail\`); each has an HTTPS receiver of its own on 127.0.0.1 that verifies every
request with the official \`standardwebhooks\` package and answers 204 after ${a.receiverAnswerMs} ms,
closing idle connections after 5 s. The events are the typical club's own (${int(w.pool.events)} from
${sig(w.pool.hours)} simulated hours of its afternoon), published for the ${int(w.endpoints)} clubs with
Poisson arrivals, each put on the ingest queue ${a.busToQueueMs} ms after its publish (EventBridge's
rule to SQS: stated, not measurable here).

**Rate.** Planned ${int(w.plannedDeliveriesPerSecond)} deliveries a second; a run this machine does not
keep up with (fewer than 85% of the window's deliveries done in it, or a p95 over 10 s) is tried
again at half the rate: ${tries}. Everything below is at **${sig(w.deliveriesPerSecond)} deliveries
a second**. The emulation puts the whole of AWS's side (both functions' containers, both queues,
the table) and the receivers on this machine's 2 cores, shared with other work.

Run 1: every receiver answers (${w.healthy.options.warmupSec} s warm-up, ${w.healthy.options.measureSec} s
measured). Run 2: ${int(w.deadEndpoints)} of them (each taking every event) dead from its start: they
accept a connection and never answer (not even TLS: each attempt waits the 5 s connect timeout);
their circuits open in ${w.dead.options.warmupSec} s of warm-up (the transition, reported apart), then
${w.dead.options.measureSec} s measured. Latency is from the publish to the 2xx, live endpoints, events
published in the measured window.`;
}

function latencyText(w: WebhookFigures): string {
  const adds = addsOf(w);
  return `**p95 publish → 2xx: ${secs(w.p95Seconds)}** (measured here ${secs(w.latency.healthyP95)}; each
delivery plus the functions' CPU share before its 2xx: a 256 MB function has 0.145 of a vCPU, so the
CPU of an invocation (measured here per invocation, its event source's polling included: an upper
bound) takes 6.9 times as long: ${secs(adds.fanOut)} for a delivery the fan-out made, ${secs(adds.deliver)}
for one the delivery function made, after a fan-out invocation). Target under 2 s:
${atRate(w, w.p95Seconds < WEBHOOK_TARGETS.p95Seconds)}. With ${int(w.deadEndpoints)} endpoints dead:
**${secs(w.p95SecondsWithDeadEndpoints)}** (${secs(w.latency.deadP95)} here); unchanged (within 25% or
0.25 s): ${atRate(w, unchanged(w))}; as they died (the warm-up): ${secs(w.dead.latencyWarmup.p95)} here.`;
}

function costText(w: WebhookFigures, c: WebhookCost): string {
  const a = w.assumptions;
  return `### Cost per million deliveries

Everything billed, from the counts of run 1's measured window (${int(c.deliveries)} deliveries in
${sig(w.healthy.window.seconds)} s, after the warm-up: caches filled), Lambda durations modelled as in
section 5 (measured CPU at the function's CPU share, the stated latency of each call, the
invocation's longest chain of answered attempts to one endpoint at ${a.receiverAnswerMs} ms plus one
round trip of ${a.receiverRttMs} ms, two more when a connection is opened, and the longest wait a
deadline ended, as measured: a timeout, a first attempt handed off at its 2 s budget):

${table(['line', 'formula (per million deliveries)', 'usd'], [...costRows(c.perMillion.lines), ['**everything billed**', '', `**${usd(c.perMillion.total)}**`]])}

Target at most $1: ${yes(c.perMillion.total <= WEBHOOK_TARGETS.costPerMillionUsd)}. Priced from run 2 (the
dead endpoints' attempts billed): ${usd(w.costWithDeadEndpoints.perMillion.total)} per million deliveries.

${table(['an average invocation', 'CPU × share', 'calls', 'attempts', 'modelled (the longer of the sum and the wall time)', 'wall time here', 'CPU load at its memory'], [modelRow('fan-out', c.duration.fanOut), modelRow('delivery', c.duration.deliver)])}

CPU load: the function's CPU at its share of a vCPU over its wall time (over 100%, a function of
that memory could not keep up with this rate).`;
}

export function webhooksSection(r: BenchResults): string {
  const w = r.webhooks;
  if (!w) return '## Webhooks\n\nNot measured in this run (a report from before webhook delivery).\n';
  const c = w.cost;
  return `## Webhooks (issue 35)

${introduction(w)}

${table(['', 'every receiver answers', `${int(w.deadEndpoints)} endpoints dead`], runRows([w.healthy, w.dead]))}

${latencyText(w)}

${costText(w, c)}

### Fixed monthly, and the typical club

${table(['line', 'formula', 'usd a month'], [...costRows(c.fixedMonthly.lines), ['**fixed**', '', `**${usd(c.fixedMonthly.total)}**`]])}

One endpoint subscribed to everything at the typical club (${int(w.club.eventsPerDay)} events a day,
section 3): ${int(w.club.deliveriesPerMonth)} deliveries a month at the variable cost per delivery of run 1
(${usd(w.club.variableUsd)}) plus the fixed costs spread over ${int(w.club.clubs)} clubs
(${usd(w.club.fixedShareUsd)}): **${usd(w.club.totalUsd)}** a club-month, ${pct(w.club.totalUsd / Math.max(1e-9, r.cost.default.total))}
of the cost per club of section 5. The 4 webhook alarms and 7 metric names are deployed whatever the
endpoints: a full bench run counts them in section 5 too (its template has them).

Stated, not measured: ${Object.entries(w.assumptions)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}. Not modelled: Lambda's cold starts (${w.healthy.window.deliver.containers} delivery
containers here, their INIT billed once each), the receivers' own network beyond the round trips,
SQS's second fair-queue measure (a tenant's share of the consumers' processing time); the
containers of one function share one connection pool here (one process), each has its own in Lambda.
`;
}
