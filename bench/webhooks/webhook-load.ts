/**
 * One load run on the webhook rig (./webhook-rig.ts): the typical club's events (./club-events.ts)
 * published for 1,000 clubs at the rate that makes the wanted deliveries a second (Poisson
 * arrivals, seeded), each put on the ingest queue as the bus's rule target does, a stated time
 * after its publish; the functions deliver; every 2xx is timed from the publish. After the load,
 * the run waits for what is still due to the live endpoints (the drain), and checks that each was
 * delivered, to its endpoint only, verified. Counted over the measured window (after the warm-up,
 * caches filled; until the load ends): every request each AWS endpoint answered, each function's
 * invocations, billed time, CPU, log and EMF bytes, the bytes the deliveries sent out, and the
 * deliveries completed in it, which the costs are divided by.
 */
import { mulberry32 } from '../../lambdas/common/seeded-random';
import { makeEventId } from '../../lambdas/events/event-id';
import { percentile } from '../stats';
import type { AwsStats } from './aws-host';
import type { EventPool } from './club-events';
import type { InvocationFigures } from './event-source';
import type { Delivered } from './lambda-host';
import type { Received } from './receivers-host';
import { filterTakes, type WebhookRig } from './webhook-rig';

export interface LoadOptions {
  readonly deliveriesPerSecond: number;
  /** Seconds of load before the measured window (containers warm up). */
  readonly warmupSec: number;
  readonly measureSec: number;
  /** The longest wait for the due deliveries after the load. */
  readonly drainSec: number;
  /** Endpoints (indexes) dead during this run. */
  readonly dead: readonly number[];
  /** Publish to ingest queue, ms (EventBridge's rule to its SQS target: stated, not measured). */
  readonly busToQueueMs: number;
  readonly seed: number;
}

export type FunctionFigures = InvocationFigures & {
  output: { logBytes: number; logLines: number; emfBytes: number; emfDocuments: number };
  /** Failed attempts by kind (delivery). */
  failures: Record<string, number>;
  /**
   * Each attempt's time; over the invocations that attempted: their endpoints, their longest chains
   * of answered attempts to one endpoint, and the longest wait of one endpoint's attempts held by a
   * deadline (a timeout, a first attempt handed off), ms, summed.
   */
  attempts: { ms: number[]; batches: number; endpoints: number; longestChains: number; heldMs: number };
  /** The process's CPU over the window (the event source's polling included). */
  cpuMs: number;
};

export interface LoadResult {
  readonly options: LoadOptions;
  readonly events: number;
  /** Deliveries due to live endpoints, and those delivered (first 2xx), over the run. */
  readonly due: number;
  readonly delivered: number;
  readonly duplicates: number;
  /** Requests a receiver got for an event its endpoint's filter does not take (must be 0). */
  readonly unmatched: number;
  readonly unverified: number;
  /** Publish to 2xx of the events published in the measured window, live endpoints, s. */
  readonly latency: { n: number; p50: number; p95: number; p99: number; max: number };
  /**
   * The same, each delivery's, by the function whose attempt got the 2xx: the fan-out's first
   * attempt, or the delivery function (after the queue). Kept in memory, not in the report.
   */
  readonly latencySamples: { readonly fanOut: number[]; readonly deliver: number[] };
  /** Deliveries (first 2xx) the fan-out made itself, and the delivery function, over the run. */
  readonly deliveredBy: { readonly fanOut: number; readonly deliver: number };
  /** The same from the ingest queue on (without the stated bus hop), s. */
  readonly latencyFromQueue: { p50: number; p95: number };
  /** Publish to 2xx of the events published in the warm-up (with dead endpoints: as they die), s. */
  readonly latencyWarmup: { n: number; p50: number; p95: number };
  readonly wallSec: number;
  /** The measured window's counts (the costs' source). */
  readonly window: WindowCounts;
}

export interface WindowCounts {
  readonly seconds: number;
  /** First 2xx inside the window. */
  readonly delivered: number;
  /** Deliveries to live endpoints of the events published inside the window. */
  readonly due: number;
  readonly fanOut: FunctionFigures;
  readonly deliver: FunctionFigures;
  readonly aws: AwsStats;
  /**
   * CPU of each process over the window, ms: the two functions (with their event sources), the
   * AWS side, the receivers, the bench (the load and EventBridge's sends). Their sum over the
   * window's seconds is the cores the emulation needed.
   */
  readonly cpuMs: Record<'fanOut' | 'deliver' | 'aws' | 'receivers' | 'bench', number>;
  /** Bytes the deliveries sent (as the receivers' sockets read them), connections, held by dead ones. */
  readonly receivers: { bytesIn: number; connections: number; heldByDead: number };
}

interface Published {
  readonly index: number;
  readonly at: number;
  queuedAt?: number;
  readonly measured: boolean;
  readonly live: boolean;
}

/** What a run keeps as it goes. */
class Tally {
  readonly published = new Map<string, Published>();
  readonly firstOk = new Map<string, number>();
  /** The function whose attempt got the first 2xx. */
  readonly by = new Map<string, 'fanOut' | 'deliver'>();
  readonly received: Received[] = [];
  duplicates = 0;
  events = 0;

  constructor(private readonly rig: WebhookRig) {}

  async collect(): Promise<void> {
    for (const fn of ['fanOut', 'deliver'] as const) {
      for (const [id, , at] of await this.rig[fn].call<Delivered[]>('takeDelivered')) {
        if (this.firstOk.has(id)) this.duplicates++;
        else {
          this.firstOk.set(id, at);
          this.by.set(id, fn);
        }
      }
    }
  }

  /** Every counter read and started over; the functions' CPU so far, the receivers' counts. */
  async take() {
    const [fanOut, deliver] = await Promise.all([
      this.rig.fanOut.call<RawFigures>('figures'),
      this.rig.deliver.call<RawFigures>('figures'),
    ]);
    const aws = await this.rig.aws.call<AwsStats>('stats');
    await this.rig.aws.call('reset');
    const r = await this.rig.receivers.call<ReceiversTake>('take');
    this.received.push(...r.received);
    const hostsCpuMs = {
      aws: await this.rig.aws.cpuMs(),
      receivers: await this.rig.receivers.cpuMs(),
      bench: cpuMs(process.cpuUsage()),
    };
    return { fanOut, deliver, aws, receivers: r, hostsCpuMs };
  }
}

type RawFigures = Omit<FunctionFigures, 'cpuMs'> & { cpu: NodeJS.CpuUsage };
interface ReceiversTake {
  received: Received[];
  bytesIn: number;
  openBytes: number;
  connections: number;
  heldByDead: number;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

/** The share of events an endpoint takes (its club's events of the pool, by the written-out filters). */
export function matchShare(pool: EventPool, endpoints: number): number {
  let taken = 0;
  for (let i = 0; i < endpoints; i++)
    for (const e of pool.events) if (filterTakes(i, e.detailType, e.detail)) taken++;
  return taken / (endpoints * pool.events.length);
}

export async function runLoad(rig: WebhookRig, pool: EventPool, o: LoadOptions): Promise<LoadResult> {
  const n = rig.endpoints.length;
  const random = mulberry32(o.seed);
  const rate = o.deliveriesPerSecond / matchShare(pool, n);
  await rig.receivers.call('setDead', o.dead);
  const dead = new Set(o.dead);
  const t = new Tally(rig);
  await rig.fanOut.call('takeDelivered');
  await rig.deliver.call('takeDelivered');
  await t.take();
  t.received.length = 0;
  const t0 = Date.now();
  const windowStart = t0 + o.warmupSec * 1000;
  const loadEnd = windowStart + o.measureSec * 1000;
  let start: Awaited<ReturnType<Tally['take']>> | undefined;
  const bus = new Bus(rig, o.busToQueueMs);
  let next = t0;
  let lastCollect = t0;
  while (Date.now() < loadEnd) {
    for (; next <= Date.now(); next += (-Math.log(1 - random()) / rate) * 1000) {
      const e = pool.events[t.events % pool.events.length]!;
      const index = Math.floor(random() * n);
      const eventId = makeEventId('bench-webhooks', String(o.seed), String(t.events++));
      const at = Date.now();
      const p: Published = { index, at, measured: at >= windowStart, live: !dead.has(index) };
      if (filterTakes(index, e.detailType, e.detail)) t.published.set(eventId, p);
      const detail = { ...e.detail, clubId: `club-${index}`, eventId };
      bus.publish(e.detailType, detail, p);
    }
    await bus.flush();
    if (!start && Date.now() >= windowStart) start = await t.take();
    if (Date.now() - lastCollect > 1000) {
      lastCollect = Date.now();
      await t.collect();
    }
    await wait(5);
  }
  await t.collect();
  const window = windowOf(await t.take(), start ?? (await t.take()), t, windowStart, Date.now());
  await new Promise((resolve) => setTimeout(resolve, o.busToQueueMs));
  await bus.flush(true);
  const dueLive = () => [...t.published].filter(([id, p]) => p.live && !t.firstOk.has(id)).length;
  const drainEnd = Date.now() + o.drainSec * 1000;
  while (Date.now() < drainEnd && dueLive() > 0) {
    await wait(500);
    await t.collect();
  }
  await t.take();
  return summarise(rig, o, t, window, (Date.now() - t0) / 1000);
}

function windowOf(
  end: Awaited<ReturnType<Tally['take']>>,
  start: Awaited<ReturnType<Tally['take']>>,
  t: Tally,
  from: number,
  to: number,
): WindowCounts {
  const fn = (f: RawFigures, since: RawFigures): FunctionFigures => ({
    ...f,
    cpuMs: cpuMs(f.cpu) - cpuMs(since.cpu),
  });
  return {
    seconds: (to - from) / 1000,
    delivered: [...t.firstOk.values()].filter((at) => at >= from && at <= to).length,
    due: [...t.published.values()].filter((p) => p.live && p.at >= from && p.at <= to).length,
    fanOut: fn(end.fanOut, start.fanOut),
    deliver: fn(end.deliver, start.deliver),
    aws: end.aws,
    cpuMs: {
      fanOut: cpuMs(end.fanOut.cpu) - cpuMs(start.fanOut.cpu),
      deliver: cpuMs(end.deliver.cpu) - cpuMs(start.deliver.cpu),
      aws: end.hostsCpuMs.aws - start.hostsCpuMs.aws,
      receivers: end.hostsCpuMs.receivers - start.hostsCpuMs.receivers,
      bench: end.hostsCpuMs.bench - start.hostsCpuMs.bench,
    },
    receivers: {
      bytesIn: end.receivers.bytesIn + end.receivers.openBytes,
      connections: end.receivers.connections,
      heldByDead: end.receivers.heldByDead,
    },
  };
}

/**
 * What EventBridge does for the rule's SQS target: each event, as a message of its own, a stated
 * while after its publish. Sent to the SQS endpoint in process (one RPC for the events due), each
 * counted as the SendMessage EventBridge makes: the load's own overhead kept off the machine.
 */
class Bus {
  readonly #pending: { due: number; body: string; p: Published }[] = [];
  #flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly rig: WebhookRig,
    private readonly delayMs: number,
  ) {}

  publish(type: string, detail: Record<string, unknown>, p: Published): void {
    const event = {
      version: '0',
      id: String(detail.eventId),
      'detail-type': type,
      source: 'gym-bridge',
      account: '123456789012',
      time: new Date(p.at).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      region: 'us-east-1',
      resources: [],
      detail,
    };
    this.#pending.push({ due: p.at + this.delayMs, body: JSON.stringify(event), p });
  }

  /** Sends what is due (all of it with `all`). */
  flush(all = false): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      const now = Date.now();
      const due = this.#pending.filter((e) => all || e.due <= now);
      if (due.length === 0) return;
      this.#pending.splice(0, due.length);
      for (const e of due) e.p.queuedAt = Date.now();
      await this.rig.aws.call(
        'sendEvents',
        this.rig.ingestUrl,
        due.map((e) => e.body),
      );
    });
    return this.#flushing;
  }
}

function summarise(
  rig: WebhookRig,
  o: LoadOptions,
  t: Tally,
  window: WindowCounts,
  wallSec: number,
): LoadResult {
  const { published, firstOk } = t;
  const indexes = new Set(rig.endpoints.map((e) => e.index));
  const unmatched = t.received.filter(
    ([index, id]) => published.get(id)?.index !== index || !indexes.has(index),
  ).length;
  const live = [...published].filter(([, p]) => p.live);
  const measured = live.filter(([id, p]) => p.measured && firstOk.has(id));
  const seconds = measured.map(([id, p]) => (firstOk.get(id)! - p.at) / 1000);
  const samples = { fanOut: [] as number[], deliver: [] as number[] };
  for (const [id, p] of measured) samples[t.by.get(id)!].push((firstOk.get(id)! - p.at) / 1000);
  const by = [...t.by.values()];
  const fromQueue = measured.map(([id, p]) => (firstOk.get(id)! - (p.queuedAt ?? p.at)) / 1000);
  const warmup = live
    .filter(([id, p]) => !p.measured && firstOk.has(id))
    .map(([id, p]) => (firstOk.get(id)! - p.at) / 1000);
  return {
    options: o,
    events: t.events,
    due: live.length,
    delivered: live.filter(([id]) => firstOk.has(id)).length,
    duplicates: t.duplicates,
    unmatched,
    unverified: t.received.filter(([, , verified]) => !verified).length,
    latency: {
      n: seconds.length,
      p50: percentile(seconds, 50),
      p95: percentile(seconds, 95),
      p99: percentile(seconds, 99),
      max: seconds.length ? Math.max(...seconds) : Number.NaN,
    },
    latencySamples: samples,
    deliveredBy: {
      fanOut: by.filter((f) => f === 'fanOut').length,
      deliver: by.filter((f) => f === 'deliver').length,
    },
    latencyFromQueue: { p50: percentile(fromQueue, 50), p95: percentile(fromQueue, 95) },
    latencyWarmup: { n: warmup.length, p50: percentile(warmup, 50), p95: percentile(warmup, 95) },
    wallSec,
    window,
  };
}
