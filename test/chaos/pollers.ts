/**
 * The poller processes of a chaos run (harness.ts, run-phases.ts): each poll, fast-lane probe and
 * hasty poll is a fresh process (one Lambda invocation) whose API client, state store and sink carry
 * the seed's faults (test/support: crashes, stale reads, store errors, failed publishes); what each
 * one leaves is recorded for the verdicts: the cursors committed after it, its lifecycle outcome and
 * the clock of each completed evaluation, and any error no injected fault explains.
 */
import type { ClubConfig } from '../../lambdas/clubs/club-config';
import { mulberry32 } from '../../lambdas/common/seeded-random';
import { Announcer } from '../../lambdas/engine/club-poll/announcer';
import { GymApiClientFactory } from '../../lambdas/engine/club-poll/client-factory';
import { clubContext } from '../../lambdas/engine/club-poll/club-context';
import { type ClubReport, pollClub } from '../../lambdas/engine/club-poll/poll-club';
import { pollSource } from '../../lambdas/engine/club-poll/poll-source';
import { pollFastLane } from '../../lambdas/engine/poll-message/poll-club-message';
import { type EventSink, PublishError } from '../../lambdas/events/publisher';
import { GymApiError } from '../../lambdas/gym-api';
import { SOURCE_ORDER, SOURCES } from '../../lambdas/sources';
import { DEFAULT_STALE_AFTER_MS } from '../../lambdas/sources/operational-events';
import {
  ConcurrentModificationError,
  type Cursor,
  type DynamoDbStateStore,
  StoreError,
} from '../../lambdas/state';
import type { Sandbox } from '../../sandbox';
import { faultyFetch } from '../support/fault-fetch';
import { type FaultInjector, SimulatedCrashError } from '../support/fault-injector';
import { FaultySink } from '../support/fault-sink';
import { faultyStore } from '../support/fault-store';
import { RecentWrites, staleReadStore } from '../support/stale-reads';
import type { CredentialWatch } from './poison-check';
import type { Scenario } from './scenario';

const MINUTE = 60_000;
/** Wall time between two polls of a club as the lease clock sees it (leases last ~90 s). */
const POLL_SPACING_MS = 5 * MINUTE;
/** A poll's deadline while the faults are on: short on purpose (scans run out of time and resume). */
const POLL_MS = 30_000;
/** The fast lane's probe period (engine/schedule/fast-lane.ts). */
const PROBE_STEP_MS = 15_000;
/**
 * A poll's deadline while the faults are off (the baseline's clean polls, settling): long enough to
 * finish on a loaded machine (at a load average of 20 on 2 cores, seeds 68 and 71 spent 30 s on
 * their first source in every settling poll). Its lease (the deadline and a minute) still ends
 * before the next poll's window.
 */
const CLEAN_POLL_MS = 3 * MINUTE;
/** The club lease of a hasty poll: its sources' budgets (at most 140 ms each) plus a minute, as pollClub sizes it. */
const HASTE_LEASE_TTL_MS = 61 * 1000 + SOURCE_ORDER.length * 140;
/**
 * The bridge's response cap in chaos runs, and the sandbox's huge page just over it: the real
 * figures (8 MiB, 100 MiB) would make a thousand runs slow without testing anything more.
 */
export const CHAOS_RESPONSE_CAP = 256 * 1024;
export const CHAOS_HUGE_PAGE_BYTES = 600 * 1024;

/** The connections runChaos (harness.ts) made for the run. */
export interface RunWiring {
  readonly store: DynamoDbStateStore;
  /** The same table without injected faults, for the harness's own reads. */
  readonly inspectionStore: DynamoDbStateStore;
  readonly sink: EventSink;
  readonly faults: { failEntryRate: number; throttleRate: number; reset(): void };
  /** Notes the bearer tokens the bridge sends (poison-check.ts). */
  readonly watch: CredentialWatch;
}

/** Errors a poll may end with under injected faults; anything else is a finding. */
function isExpectedFailure(err: unknown): boolean {
  return (
    err instanceof SimulatedCrashError ||
    err instanceof StoreError ||
    err instanceof ConcurrentModificationError ||
    err instanceof GymApiError ||
    err instanceof PublishError
  );
}

const describe = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

/** The run's poller processes: the run's phases (run-phases.ts) call them and set their mode. */
export class Pollers {
  /** Poller processes started: polls, racing polls, probes, hasty polls. */
  polls = 0;
  /** The club's cursors as committed after each poll, read around the faults (operational-check.ts). */
  readonly committed: Cursor[][] = [];
  /** The clock of each poll whose lifecycle evaluation completed (from its report). */
  readonly evaluations: { label: string; atMs: number }[] = [];
  /** How each poll's lifecycle ended (`outcome: reason`), counted: a verdict with no evaluation names them. */
  readonly lifecycleOutcomes = new Map<string, number>();
  /** Settling has begun (every fault off): a failed lifecycle evaluation is a finding. */
  settleStarted = false;
  /** The lifecycle rounds: every fault on but slow responses (they only make the long rounds long). */
  quick = false;
  /** Every fault is off (the baseline's clean polls, settling): polls get CLEAN_POLL_MS. */
  clean = false;
  /** This round's polls send a rotated API key (the API answers 401: Club Credentials Rejected). */
  keyRotated = false;

  readonly #club: ClubConfig;
  readonly #now: () => number;
  readonly #recentWrites: RecentWrites;
  /** The fast lane's dice: apart from the faults', so a seed's faults stay where they were. */
  readonly #laneDice: () => number;

  constructor(
    private readonly scenario: Scenario,
    private readonly injector: FaultInjector,
    private readonly sandbox: Sandbox,
    private readonly wiring: RunWiring,
    club: ClubConfig,
  ) {
    this.#club = club;
    this.#now = () => sandbox.clock.now().getTime();
    // Reads across polls go stale at their own rate, drawn apart: the faults' dice stay as they were.
    this.#recentWrites = new RecentWrites(
      scenario.staleAcrossPolls > 0
        ? { rate: scenario.staleAcrossPolls, random: mulberry32(scenario.seed ^ 0x165667b1) }
        : undefined,
    );
    this.#laneDice = mulberry32(scenario.seed ^ 0x27d4eb2d);
  }

  #process(label: string) {
    const process = this.injector.newProcess(label);
    const clients = new GymApiClientFactory({
      fetch: this.wiring.watch.watchFetch(
        faultyFetch(process, {
          jumpClock: () => this.sandbox.advance(this.scenario.api.clockJumpSec * 1000),
        }),
      ),
      // Short timeouts are a fault: the settling polls use the client's default.
      ...(this.injector.active && !this.quick
        ? { requestTimeoutMs: this.scenario.api.requestTimeoutMs }
        : {}),
      // Fast retries; a 429 (Retry-After: 1 s) is not waited for but reported, so the club pauses.
      retry: { baseDelayMs: 1, maxDelayMs: 8, quotaDelayMs: 1, maxQuotaDelayMs: 50 },
      maxResponseBytes: CHAOS_RESPONSE_CAP,
    });
    // Stale reads stay on while settling: production reads eventually consistent at all times.
    const stale = staleReadStore(this.wiring.store, process, this.scenario.staleReadRate, this.#recentWrites);
    return {
      process,
      clients,
      store: faultyStore(stale, process),
      sink: new FaultySink(this.wiring.sink, process),
    };
  }

  /**
   * Polls are minutes apart, leases last seconds past their poll's deadline: a lease a killed
   * poller (or a failed release) left behind has expired by the next poll. The lease clock moves
   * on accordingly, so the test does not wait for it.
   */
  nextPollWindow(): void {
    this.injector.leaseClockOffsetMs += POLL_SPACING_MS;
  }

  /** The club as this round polls it: with a rotated API key in the round that has one. */
  #polledClub(): ClubConfig {
    const club = this.#club;
    if (!this.keyRotated) return club;
    return { ...club, credentials: { ...club.credentials, apiKey: `${club.credentials.apiKey}-rotated` } };
  }

  /** One poll of the club by a fresh poller process (one Lambda invocation). */
  async poll(
    label: string,
    failures: string[],
    options: { newWindow?: boolean; ignorePause?: boolean; probes?: boolean } = {},
  ): Promise<ClubReport | undefined> {
    if (options.newWindow ?? true) this.nextPollWindow();
    const lane = this.scenario.fastLane;
    // The round's poll pays for its probes (the dispatcher's `probes`: counted, marked paid).
    const probes = options.probes
      ? { probes: { count: lane.probes, untilMs: this.#now() + (lane.probes + 1) * PROBE_STEP_MS } }
      : {};
    this.polls++;
    const { process, clients, store, sink } = this.#process(label);
    try {
      const report = await pollClub(
        { store, sink, clients, owner: process.owner, now: this.#now },
        this.#polledClub(),
        {
          deadlineMs: Date.now() + (this.clean ? CLEAN_POLL_MS : POLL_MS),
          pageSize: this.scenario.pageSize,
          ...(options.ignorePause ? { ignorePause: true } : {}),
          ...probes,
        },
      );
      process.closed = true;
      for (const f of report.failures) {
        if (f.kind === 'internal' && !/simulated|is dead/.test(f.message)) {
          failures.push(`${label}: ${f.source} failed with an unexpected error: ${f.message}`);
        }
      }
      if (report.lifecycle) {
        const l = report.lifecycle;
        const key = `${l.outcome}${'reason' in l ? `: ${l.reason}` : 'error' in l ? `: ${l.error}` : ''}`;
        this.lifecycleOutcomes.set(key, (this.lifecycleOutcomes.get(key) ?? 0) + 1);
      }
      if (report.lifecycle?.outcome === 'evaluated') this.evaluations.push({ label, atMs: this.#now() });
      if (report.lifecycle?.outcome === 'failed' && this.settleStarted)
        failures.push(`${label}: the lifecycle evaluation failed with faults off: ${report.lifecycle.error}`);
      return report;
    } catch (err) {
      if (!isExpectedFailure(err)) failures.push(`${label}: poll threw ${describe(err)}`);
      return undefined;
    } finally {
      process.end();
      await this.#noteCommitted();
    }
  }

  /** Whether this round's poll pays for probes (the lane on), drawn apart from the faults' dice. */
  laneRound(): boolean {
    return this.#laneDice() < this.scenario.fastLane.rate;
  }

  /**
   * The fast lane's probes after a round, 15 s apart: each a poller process of its own through the
   * one message path's fast lane (probe, then a session when a visit came). A probe no poll paid
   * for (after a race or a hasty round: perhaps while a scan is in progress) asks nothing.
   */
  async probes(round: number, failures: string[]): Promise<void> {
    const lane = this.scenario.fastLane;
    if (lane.rate === 0) return;
    for (let k = 1; k <= lane.probes; k++) {
      this.sandbox.advance(PROBE_STEP_MS);
      this.nextPollWindow();
      this.polls++;
      this.injector.count('fast-lane-probe');
      const label = `probe${round}.${k}`;
      const { process, clients, store, sink } = this.#process(label);
      try {
        const report = await pollFastLane(
          { store, sink, clients, owner: process.owner, now: this.#now },
          this.#polledClub(),
          { deadlineMs: Date.now() + POLL_MS, pageSize: this.scenario.pageSize },
        );
        process.closed = true;
        if (report.sources.some((s) => s.outcome === 'completed' && s.mode !== 'probe'))
          this.injector.count('fast-lane-session');
      } catch (err) {
        if (!isExpectedFailure(err)) failures.push(`${label}: probe threw ${describe(err)}`);
      } finally {
        process.end();
        await this.#noteCommitted();
      }
    }
  }

  async #noteCommitted(): Promise<void> {
    this.committed.push(await this.wiring.inspectionStore.view(this.#club.clubId).listCursors());
  }

  /** Every source polled on its own with a deadline too short to finish: scans save and resume. */
  async pollSourcesInHaste(label: string, failures: string[]): Promise<void> {
    this.nextPollWindow();
    this.polls++;
    const { process, clients, store, sink } = this.#process(label);
    const club = this.#polledClub();
    const client = clients.forClub(club, () => {});
    const ctx = clubContext(club);
    try {
      // As pollClub does: the sources are polled under the club's lease (one poller per club); a
      // lease another poller holds (or an injected conflict) skips this poll.
      const session = await store.openClub(club.clubId, process.owner, HASTE_LEASE_TTL_MS, Date.now());
      if (!session) return;
      // As pollClub does first: what earlier polls owe, delivered (club-poll/announcer.ts).
      const announcer = new Announcer({ store: session, sink, club, now: this.#now });
      await session
        .listCursors()
        .then((cursors) => announcer.catchUp(cursors, DEFAULT_STALE_AFTER_MS))
        .catch((err: unknown) => {
          if (!isExpectedFailure(err)) failures.push(`${label}: catching up threw ${describe(err)}`);
        });
      for (const name of club.sources ?? SOURCE_ORDER) {
        const budgetMs = 20 + Math.floor(this.injector.random() * 120);
        try {
          await pollSource(
            { store: session, sink, client, now: this.#now, owner: process.owner },
            ctx,
            SOURCES[name],
            {
              deadlineMs: Date.now() + budgetMs,
              reserveMs: 0,
              pageSize: this.scenario.pageSize,
            },
          );
        } catch (err) {
          if (!isExpectedFailure(err)) failures.push(`${label}: ${name} threw ${describe(err)}`);
          if (process.dead) break;
        }
      }
      if (!process.dead) {
        await session.close();
        process.closed = true;
      }
    } catch (err) {
      if (!isExpectedFailure(err)) failures.push(`${label}: club lease threw ${describe(err)}`);
    } finally {
      process.end();
      await this.#noteCommitted();
    }
  }
}
