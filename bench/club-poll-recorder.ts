/**
 * Polls the typical club one message at a time, as the poll Lambda would, and counts what each poll
 * cost: its time, requests, rows, events, store and sink use, per source, plus the log lines and
 * the EMF the poll handler would write.
 */
import { randomUUID } from 'node:crypto';
import type { PollMessage } from '../lambdas/common/deployment-contract';
import type { ClubReport } from '../lambdas/engine/club-poll/poll-club';
import type { SourceName } from '../lambdas/state/store';
import { addSinkCounts, emptySinkCounts, type SinkCounts } from './counting-sink';
import { addStoreCounts, emptyStoreCounts, type StoreCounts } from './counting-store';
import { EmfCapture } from './emf-capture';
import { LogCapture } from './log-capture';
import { emptyRequestCounts, type RequestCounts } from './sim-clients';
import { cpuMsSince, entryOf } from './stats';
import type { TypicalClubRig } from './typical-club-rig';
import { addWireCounts } from './wire-counts';

/** One poll invocation. */
export interface PollSample {
  /** 'fast': a fast-lane probe (and the session it opened, if any). */
  readonly lane?: 'fast';
  readonly simMs: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly sources: readonly SourceName[];
  readonly requests: number;
  readonly rows: number;
  readonly events: number;
  readonly storeRequests: number;
  readonly putEventsRequests: number;
  readonly apiWallMs: number;
  /**
   * Data requests on the poll's critical path: pollClub polls its first source alone and the
   * others side by side, so a poll waits for the first source's requests plus the busiest other's;
   * a page asked for ahead waits alongside the one before it and does not count.
   */
  readonly criticalRequests: number;
}

export interface SourceTotals {
  polls: number;
  requests: number;
  rows: number;
  events: number;
}

export class ClubPollRecorder {
  readonly polls: PollSample[] = [];
  readonly requests = emptyRequestCounts();
  readonly sinkTotals = emptySinkCounts();
  readonly pollStore = emptyStoreCounts();
  readonly bySource: Record<string, SourceTotals> = {};
  readonly emf: EmfCapture;
  readonly logs: LogCapture;
  /** The lifecycle evaluations the polls made (their reports), what they published and took. */
  readonly lifecycle = { evaluations: 0, published: 0, ms: 0, waiting: 0, historyRequests: 0 };
  /** API requests of the visit history the club's first evaluation read (once: never reset). */
  historyRequestsOnce = 0;
  failures = 0;

  /** `pollBatchSize`: the clubs a poll invocation carries, sharing its EMF and its context line. */
  constructor(
    private readonly rig: TypicalClubRig,
    options: { readonly pollBatchSize?: number } = {},
  ) {
    this.emf = new EmfCapture(options.pollBatchSize);
    this.logs = new LogCapture(options.pollBatchSize);
  }

  /** Polls one message and records it; undefined when the poll handler dropped the message. */
  async poll(message: PollMessage): Promise<ClubReport | undefined> {
    const { rig } = this;
    rig.pollStart.sim = rig.clock.nowMs;
    rig.pollStart.wall = performance.now();
    const cpu0 = process.cpuUsage();
    const report = await rig.path.poll(message);
    const wallMs = performance.now() - rig.pollStart.wall;
    const cpuMs = cpuMsSince(cpu0);
    const req = rig.clients.take();
    const storeCounts = rig.store.take();
    const sinkCounts = rig.sink.take();
    if (!report) return undefined;
    const { plan } = rig.club;
    this.logs.poll(report, {
      messageId: randomUUID(),
      nowMs: rig.clock.nowMs,
      durationMs: wallMs,
      rateLimited: 0,
      plan,
      ...(message.lane ? { lane: message.lane } : {}),
    });
    this.emf.poll({ report, plan, durationMs: wallMs, rateLimited: 0 });
    if (report.failures.length > 0) this.failures += report.failures.length;
    const history =
      report.lifecycle && 'historyRequests' in report.lifecycle ? report.lifecycle.historyRequests : 0;
    this.lifecycle.historyRequests += history ?? 0;
    this.historyRequestsOnce += history ?? 0;
    if (report.lifecycle?.outcome === 'evaluated') {
      this.lifecycle.evaluations++;
      this.lifecycle.published += report.lifecycle.published;
      this.lifecycle.ms += report.lifecycle.ms;
    } else if (report.lifecycle?.outcome === 'waiting') this.lifecycle.waiting++;
    this.polls.push({
      ...(message.lane ? { lane: message.lane } : {}),
      simMs: rig.clock.nowMs,
      wallMs,
      cpuMs,
      sources: report.sources.map((s) => s.source as SourceName),
      requests: req.data,
      rows: report.sources.reduce((a, s) => a + s.records, 0),
      events: sinkCounts.events,
      storeRequests: storeCounts.apiRequests,
      putEventsRequests: sinkCounts.putEventsRequests,
      apiWallMs: req.dataWallMs,
      criticalRequests: criticalRequests(report, req.bySource, req.aheadBySource),
    });
    this.#add(report, req, storeCounts, sinkCounts);
    return report;
  }

  #add(report: ClubReport, req: RequestCounts, storeCounts: StoreCounts, sinkCounts: SinkCounts): void {
    this.requests.data += req.data;
    this.requests.reauth401 += req.reauth401;
    this.requests.token += req.token;
    this.requests.dataWallMs += req.dataWallMs;
    if (req.wire) addWireCounts(this.requests.wire, req.wire);
    addSinkCounts(this.sinkTotals, sinkCounts);
    addStoreCounts(this.pollStore, storeCounts);
    for (const s of report.sources) {
      const t = entryOf(this.bySource, s.source, () => ({ polls: 0, requests: 0, rows: 0, events: 0 }));
      t.polls++;
      t.rows += s.records;
      t.events += s.events;
      t.requests += s.pages;
    }
  }

  /** Forgets the baseline's counts (its failures stay counted) and the EMF and log lines so far. */
  resetCounts(): void {
    this.emf.bytes = 0;
    this.emf.documents = 0;
    this.logs.bytes = 0;
    this.logs.lines = 0;
    Object.assign(this.requests, emptyRequestCounts());
    Object.assign(this.pollStore, emptyStoreCounts());
    Object.assign(this.sinkTotals, emptySinkCounts());
    for (const key of Object.keys(this.bySource)) delete this.bySource[key];
    Object.assign(this.lifecycle, { evaluations: 0, published: 0, ms: 0, waiting: 0, historyRequests: 0 });
  }
}

/**
 * The first source's requests plus the busiest of the others' (they run side by side), each
 * without its pages asked for ahead (they wait alongside the page before them).
 */
export function criticalRequests(
  report: ClubReport,
  bySource: Readonly<Record<string, number>>,
  aheadBySource: Readonly<Record<string, number>> = {},
): number {
  const [first, ...rest] = report.sources.map(
    (s) => (bySource[s.source] ?? 0) - (aheadBySource[s.source] ?? 0),
  );
  return (bySource[''] ?? 0) + (first ?? 0) + Math.max(0, ...rest);
}
