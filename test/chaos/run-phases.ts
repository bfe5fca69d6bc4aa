/**
 * The phases of one chaos run (runChaos in harness.ts wires it): a silent baseline (no data changes,
 * so the journal starts where the bridge's state does), `rounds` polls after simulated activity with
 * faults on (one poller, two racing, or every source in haste; a rotated API key, a missing endpoint
 * and the lifecycle rounds hours apart in the rounds the seed draws), then every fault off, the clock
 * moved on (deep sweeps due, pauses over) and polls until one publishes nothing new and the lifecycle
 * has evaluated. Switches the faults of every layer on and off between phases; each poll is a poller
 * process of pollers.ts. Also gives the lifecycle verdict its inputs (lifecycle-check.ts).
 */
import { type ClubConfig, parseClubsFile } from '../../lambdas/clubs/club-config';
import type { ClubReport } from '../../lambdas/engine/club-poll/poll-club';
import type { BridgeEvent } from '../../lambdas/events/catalog';
import { OPERATIONS } from '../../lambdas/gym-api/operations';
import { LIFECYCLE_SOURCES } from '../../lambdas/lifecycle/club-lifecycle';
import { SOURCE_ORDER } from '../../lambdas/sources';
import type { Cursor, DynamoDbStateStore } from '../../lambdas/state';
import type { JournalEntry, Sandbox } from '../../sandbox';
import { type FaultInjector, missingEndpointRound, rotatedKeyRound } from '../support/fault-injector';
import { checkLifecycle, type LifecycleCheck } from './lifecycle-check';
import type { ApiRecord, SandboxView } from './lifecycle-truth';
import { CHAOS_HUGE_PAGE_BYTES, Pollers, type RunWiring } from './pollers';
import type { Scenario } from './scenario';

const MINUTE = 60_000;
/**
 * Clean polls allowed to reach a poll that publishes nothing new (the lifecycle rounds leave days of
 * data to sweep), with a lifecycle evaluation among them.
 */
const MAX_SETTLE_POLLS = 10;
/**
 * Simulated time before the settling polls: past the hourly payment sweep and the longest pause a
 * 429 causes (an hour), so every source is due and polled.
 */
const SETTLE_ADVANCE_MS = 61 * MINUTE;

function describeReport(report: ClubReport): string {
  const sources = report.sources.map(
    (s) => `${s.source} ${s.outcome}${s.reason ? ` (${s.reason})` : ''}, ${s.events} events`,
  );
  const failed = report.failures.map((f) => `${f.source} failed (${f.kind}): ${f.message}`);
  return `${report.outcome}${report.pausedUntil ? ` until ${report.pausedUntil}` : ''}: ${[...sources, ...failed].join('; ')}`;
}

export class ChaosRun {
  baselineSeq = 0;
  /** The API's members, prospects and payments when the baseline ended, and the clock then. */
  #baseline: SandboxView['baseline'] | undefined;
  #baselineMs = 0;

  /** The polls so far (each a poller process), and the club's cursors as committed after each. */
  get polls(): number {
    return this.#pollers.polls;
  }
  get committed(): Cursor[][] {
    return this.#pollers.committed;
  }
  /** The club as polled, and the table read around the faults: for the poison accounting. */
  get club(): ClubConfig {
    return this.#club;
  }
  get inspectionStore(): DynamoDbStateStore {
    return this.wiring.inspectionStore;
  }

  readonly #club: ClubConfig;
  readonly #now: () => number;
  /** The run's poller processes (pollers.ts): what each poll left, and the mode the phases set. */
  readonly #pollers: Pollers;

  constructor(
    private readonly scenario: Scenario,
    private readonly injector: FaultInjector,
    private readonly sandbox: Sandbox,
    private readonly wiring: RunWiring,
  ) {
    const [club] = parseClubsFile(sandbox.clubsFile());
    if (!club) throw new Error('the sandbox has no club');
    this.#club = {
      ...club,
      // Every source, the experimental classAttendance too (opt-in: not in the default sources); a
      // run with lifecycle rounds hours apart polls the four sources the lifecycle reads.
      sources: scenario.lifecycle.longRounds > 0 ? [...LIFECYCLE_SOURCES] : [...SOURCE_ORDER],
      lifecycle: {
        enabled: true,
        inactiveDays: scenario.lifecycle.inactiveDays,
        expiringDays: scenario.lifecycle.expiringDays,
        trialEndingHours: scenario.lifecycle.trialEndingHours,
      },
      unstatedZone: scenario.club.unstatedZone,
      unstatedZoneConfirmed: scenario.club.unstatedZoneConfirmed,
      piiPolicy: scenario.club.piiPolicy,
    };
    this.#now = () => sandbox.clock.now().getTime();
    this.#pollers = new Pollers(scenario, injector, sandbox, wiring, this.#club);
  }

  async execute(failures: string[]): Promise<void> {
    const { scenario, injector, sandbox } = this;
    // 1. Silent baseline; the journal does not move, so it starts where the bridge's state does.
    this.#faultsOn({ changeData: false });
    injector.active = scenario.faultsInBaseline;
    for (let i = 0; i < 3 && !(await this.#baselineDone()); i++)
      await this.#pollers.poll('baseline', failures);
    this.#faultsOff();
    // The clock stands still during the baseline: a pause a 429 caused would never end.
    for (let i = 0; i < 4 && !(await this.#baselineDone()); i++) {
      await this.#pollers.poll('baseline-clean', failures, { ignorePause: true });
    }
    if (!(await this.#baselineDone())) {
      const cursors = await this.wiring.inspectionStore.view(this.#club.clubId).listCursors();
      const state = cursors.map(
        (c) =>
          `${c.source}: ${c.baselineDone ? 'done' : 'not done'}${c.scan ? ', scan open' : ''}${c.health.lastError ? `, ${c.health.lastError.kind}: ${c.health.lastError.message}` : ''}`,
      );
      failures.push(`the baseline did not complete with faults off (${state.join('; ')})`);
    }
    this.baselineSeq = sandbox.journal.lastSeq;
    this.#baselineMs = this.#now();
    const records = (operation: 'members' | 'prospects' | 'paymentHistory' | 'visits') =>
      this.#realRecords(operation);
    this.#baseline = {
      members: records('members'),
      prospects: records('prospects'),
      payments: records('paymentHistory'),
      // The visit history the first evaluation may read (from its seenFrom): every visit so far.
      visits: records('visits'),
    };

    // 2. Activity and polls with every fault on.
    this.#faultsOn({ changeData: true });
    injector.active = true;
    const { longRounds, longStepMinutes } = scenario.lifecycle;
    for (let round = 1; round <= scenario.rounds + longRounds; round++) {
      if (round === scenario.rounds + 1) {
        this.#pollers.quick = true;
        Object.assign(sandbox.faults, { latencyMs: 0, latencyJitterMs: 0 });
      }
      sandbox.advance((round > scenario.rounds ? longStepMinutes : scenario.stepMinutes) * MINUTE);
      this.#pollers.keyRotated = round === rotatedKeyRound(scenario.seed, scenario.rounds);
      if (this.#pollers.keyRotated) injector.count('api-key-rotated');
      if (round === missingEndpointRound(scenario.seed, scenario.rounds)) {
        // From here until the faults are off, the experimental source's endpoint is missing.
        injector.count('endpoint-missing');
        sandbox.failNext(Number.POSITIVE_INFINITY, 404, { pathPrefix: OPERATIONS.classAttendance.path });
      }
      const before = sandbox.journal.lastSeq;
      const dice = injector.random();
      if (dice < scenario.raceRate) {
        injector.count('race');
        this.#pollers.nextPollWindow();
        await Promise.all([
          this.#pollers.poll(`race-a${round}`, failures, { newWindow: false }),
          this.#pollers.poll(`race-b${round}`, failures, { newWindow: false }),
        ]);
      } else if (dice < scenario.raceRate + scenario.shortDeadlineRate) {
        injector.count('short-deadline-poll');
        await this.#pollers.pollSourcesInHaste(`haste${round}`, failures);
      } else {
        await this.#pollers.poll(`round${round}`, failures, { probes: this.#pollers.laneRound() });
      }
      await this.#pollers.probes(round, failures);
      injector.count('changes-during-poll', sandbox.journal.lastSeq - before);
    }

    // 3. Faults off; the clock moves on (sweeps due, pauses over); poll until nothing new comes.
    this.#pollers.keyRotated = false;
    sandbox.clearFailures();
    this.#faultsOff();
    this.#pollers.settleStarted = true;
    sandbox.advance(SETTLE_ADVANCE_MS);
    await this.#waitOutPausesAndRetries();
    let quiet = false;
    let evaluated = false;
    let last = '';
    for (let i = 0; i < MAX_SETTLE_POLLS && !(quiet && evaluated); i++) {
      const report = await this.#pollers.poll(`settle${i + 1}`, failures);
      last = report ? describeReport(report) : 'the poll threw';
      const data = report?.sources.reduce((n, s) => n + s.events, 0) ?? -1;
      quiet =
        report !== undefined &&
        report.outcome === 'ok' &&
        report.sources.every((s) => s.outcome === 'completed') &&
        data === 0;
      // The lifecycle verdict needs an evaluation while settling: a poll short of time (a loaded
      // machine) leaves it waiting, its reading of the visit history going on in the next poll.
      evaluated = this.#pollers.evaluations.some((e) => e.label.startsWith('settle'));
    }
    if (!quiet) {
      failures.push(
        `no quiet, complete poll within ${MAX_SETTLE_POLLS} polls with faults off (last: ${last})`,
      );
    }
  }

  /** The API's records of an operation without poison mode's bad records (their markers). */
  #realRecords(operation: 'members' | 'prospects' | 'paymentHistory' | 'visits'): ApiRecord[] {
    return this.sandbox
      .records(this.#club.clubId, operation)
      .filter((r) => this.sandbox.poison.findIn(r).length === 0);
  }

  /**
   * The lifecycle verdict (lifecycle-check.ts): the events delivered against the facts of the
   * records and journal, up to the last evaluation of the settling polls.
   */
  async checkLifecycle(
    delivered: readonly BridgeEvent[],
    ofPoison: ReadonlySet<BridgeEvent>,
    journal: readonly JournalEntry[],
    failures: string[],
  ): Promise<LifecycleCheck> {
    const empty: LifecycleCheck = { checked: 0, byType: {}, required: 0, missing: [], spurious: [] };
    const events = delivered.filter((e) => e.detail.source === 'lifecycle');
    const settled = this.#pollers.evaluations.filter((e) => e.label.startsWith('settle')).at(-1);
    const stored = await this.wiring.inspectionStore.parts.lifecycle.getLifecycle(this.#club.clubId);
    const doc = stored?.doc as
      | { trackedSince?: string; trackedSinceMs?: number; seenFrom?: string }
      | undefined;
    if (!settled || !doc?.trackedSince || doc.trackedSinceMs === undefined || !this.#baseline) {
      failures.push(
        `lifecycle: no evaluation while settling, or no document (${this.#pollers.evaluations.length} evaluations; the polls' lifecycle outcomes: ${JSON.stringify(Object.fromEntries(this.#pollers.lifecycleOutcomes))})`,
      );
      return empty;
    }
    const loose = new Set([...ofPoison].flatMap((e) => e.detail.subject.memberNumber ?? []));
    const { lifecycle } = this.scenario;
    const check = checkLifecycle({
      clubId: this.#club.clubId,
      zone: this.#club.timeZone,
      settings: lifecycle,
      trackedSince: doc.trackedSince,
      trackedSinceMs: doc.trackedSinceMs,
      seenFrom: doc.seenFrom ?? doc.trackedSince,
      endMs: settled.atMs,
      baseline: this.#baseline,
      baselineMs: this.#baselineMs,
      final: { members: this.#realRecords('members'), prospects: this.#realRecords('prospects') },
      journal,
      events,
      loose,
    });
    if (check.missing.length) failures.push(`lifecycle missing: ${check.missing.slice(0, 10).join('; ')}`);
    if (check.spurious.length) failures.push(`lifecycle spurious: ${check.spurious.slice(0, 10).join('; ')}`);
    return check;
  }

  /**
   * The clock moves on to the end of any pause (a 401 or 429 of the fault phase) and to the next
   * try of a source set aside as unavailable (an experimental source's 400, every 6 hours): the
   * documented retries, after which every change must arrive.
   */
  async #waitOutPausesAndRetries(): Promise<void> {
    const cursors = await this.wiring.inspectionStore.view(this.#club.clubId).listCursors();
    const until = Math.max(
      0,
      ...cursors
        .flatMap((c) => [c.health.pausedUntil, c.health.unavailable?.retryAt])
        .map((t) => (t ? Date.parse(t) : 0)),
    );
    const now = this.#now();
    if (until > now) this.sandbox.advance(until - now + MINUTE);
  }

  async #baselineDone(): Promise<boolean> {
    const cursors = await this.wiring.inspectionStore.view(this.#club.clubId).listCursors();
    return (this.#club.sources ?? SOURCE_ORDER).every((s) =>
      cursors.some((c) => c.source === s && c.baselineDone && !c.scan),
    );
  }

  #faultsOn({ changeData }: { changeData: boolean }): void {
    this.#pollers.clean = false;
    const { api, eventBridge } = this.scenario;
    Object.assign(this.sandbox.faults, {
      errorRate5xx: api.errorRate5xx,
      rate429: api.rate429,
      latencyMs: api.latencyMs,
      latencyJitterMs: api.latencyJitterMs,
      tokenLifetimeSec: api.tokenLifetimeSec,
      unstableOrdering: api.unstableOrdering,
      insertWhilePaging: changeData ? api.insertWhilePaging : false,
      lateArrivalRate: changeData ? api.lateArrivalRate : 0,
      maxLatenessMin: api.maxLatenessMin,
      // While data changes: bad records stored, responses bent. Not in the baseline: a bent answer
      // of an experimental source sets it aside for hours (by design), and the baseline must end.
      poison:
        this.scenario.poison && changeData
          ? {
              ...this.scenario.poison.habits,
              stored: this.scenario.poison.stored,
              hugePageBytes: CHAOS_HUGE_PAGE_BYTES,
            }
          : false,
    });
    this.wiring.faults.failEntryRate = eventBridge.failEntryRate;
    this.wiring.faults.throttleRate = eventBridge.throttleRate;
    this.injector.rates = changeData
      ? { ...this.scenario.rates }
      : { ...this.scenario.rates, clockJumpRate: 0 };
  }

  #faultsOff(): void {
    this.#pollers.clean = true;
    this.injector.active = false;
    Object.assign(this.sandbox.faults, {
      errorRate5xx: 0,
      rate429: 0,
      latencyMs: 0,
      latencyJitterMs: 0,
      tokenLifetimeSec: 3600,
      unstableOrdering: false,
      insertWhilePaging: false,
      lateArrivalRate: 0,
      poison: false,
    });
    this.wiring.faults.reset();
  }
}
