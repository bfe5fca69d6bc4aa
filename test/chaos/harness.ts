/**
 * One seeded chaos run of the whole engine: the sandbox (one small club, a short history), dynalite
 * through the real SDK, a local EventBridge endpoint through the real SDK and EventBridgeSink, and
 * the faults of the seed's scenario (scenario.ts) injected at every layer:
 *
 * - API: 5xx and 429, slow responses and timeouts, token expiry mid-scan (the sandbox clock jumps
 *   while paging), unstable ordering, inserts while paging, late arrivals, a DST transition;
 * - EventBridge: failed entries and throttled requests (the local endpoint's seeded faults);
 * - DynamoDB: throttling (SDK middleware) and, through a StateStore wrapper, StoreErrors and lost
 *   conditional writes on the table and the lease; a poll's club session fails only as it can (its
 *   cursor steps are in memory: test/support/fault-store.ts);
 * - crashes before, after or half-way through any step of a poll (fetch, every store call,
 *   publish), as an exception or as a killed process whose lease is left to expire;
 * - two pollers racing for the club, and polls whose deadline is too short to finish (scans resume).
 *
 * Phases: a silent baseline (no data changes, so the journal starts where the bridge's state
 * does), `rounds` polls after simulated activity with faults on, then every fault off, the clock
 * moved on (deep sweeps due, pauses over) and polls until one publishes nothing new and the
 * lifecycle has evaluated. The events on the bus are then checked against the journal
 * (journal-check.ts).
 *
 *   const result = await runChaos(123, { dynamoEndpoint }); // result.ok, result.failures
 */
import {
  type AttributeValue,
  DeleteTableCommand,
  DynamoDBClient,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { type ClubConfig, parseClubsFile } from '../../lambdas/clubs/club-config';
import { mulberry32 } from '../../lambdas/common/seeded-random';
import { Announcer } from '../../lambdas/engine/club-poll/announcer';
import { GymApiClientFactory } from '../../lambdas/engine/club-poll/client-factory';
import { clubContext } from '../../lambdas/engine/club-poll/club-context';
import { type ClubReport, pollClub } from '../../lambdas/engine/club-poll/poll-club';
import { pollSource } from '../../lambdas/engine/club-poll/poll-source';
import { pollFastLane } from '../../lambdas/engine/poll-message/poll-club-message';
import type { BridgeEvent } from '../../lambdas/events/catalog';
import { EventBridgeSink, type EventSink, PublishError } from '../../lambdas/events/publisher';
import { GymApiError } from '../../lambdas/gym-api';
import { OPERATIONS } from '../../lambdas/gym-api/operations';
import { LIFECYCLE_SOURCES } from '../../lambdas/lifecycle/club-lifecycle';
import { SOURCE_ORDER, SOURCES } from '../../lambdas/sources';
import { DEFAULT_STALE_AFTER_MS } from '../../lambdas/sources/operational-events';
import {
  ConcurrentModificationError,
  type Cursor,
  DynamoDbStateStore,
  type SourceName,
  StoreError,
} from '../../lambdas/state';
import { startLocalEventBridge } from '../../local-aws/local-eventbridge';
import { type JournalEntry, type Sandbox, startSandbox } from '../../sandbox';
import { createTestTable } from '../support/dynalite';
import { injectDynamoDbThrottling } from '../support/fault-dynamodb';
import { faultyFetch } from '../support/fault-fetch';
import {
  type Counters,
  FaultInjector,
  missingEndpointRound,
  rotatedKeyRound,
  SimulatedCrashError,
} from '../support/fault-injector';
import { FaultySink } from '../support/fault-sink';
import { faultyStore } from '../support/fault-store';
import { RecentWrites, staleReadStore } from '../support/stale-reads';
import { checkAgainstJournal, type JournalCheck } from './journal-check';
import { checkLifecycle, type LifecycleCheck } from './lifecycle-check';
import type { ApiRecord, SandboxView } from './lifecycle-truth';
import { checkOperational, type OperationalCheck } from './operational-check';
import { accountPoison, CredentialWatch, type PoisonFigures } from './poison-check';
import { type Scenario, scenarioFor } from './scenario';

const MINUTE = 60_000;
/** The source that reports each kind of journal change (the others: members, prospects or none). */
const JOURNAL_SOURCE: Partial<Record<JournalEntry['kind'], SourceName>> = {
  visit: 'visits',
  paymentRecorded: 'paymentHistory',
  paymentResponseChanged: 'paymentHistory',
  paymentRefunded: 'paymentHistory',
  posTransaction: 'posTransactions',
  disbursement: 'disbursements',
  debtCollection: 'debtCollection',
  classAttendance: 'classAttendance',
};
const CREDENTIALS = { accessKeyId: 'chaos', secretAccessKey: 'chaos' };
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
const CHAOS_RESPONSE_CAP = 256 * 1024;
const CHAOS_HUGE_PAGE_BYTES = 600 * 1024;

export interface ChaosEnvironment {
  /** A DynamoDB endpoint (dynalite) shared by runs; each run gets a table of its own. */
  readonly dynamoEndpoint: string;
}

export interface ChaosRunResult {
  readonly seed: number;
  readonly ok: boolean;
  /** Why the run failed (empty when ok): missing, spurious, unexplained duplicates, errors. */
  readonly failures: string[];
  readonly check: JournalCheck;
  /** The lifecycle events against the facts the records and journal imply. */
  readonly lifecycle: LifecycleCheck;
  /** The operational events against the conditions the committed state implies (operational-check.ts). */
  readonly operational: OperationalCheck;
  /** What poison mode stored and served, and what the bridge did with it. */
  readonly poison: PoisonFigures;
  /** Faults actually injected in this run, by kind. */
  readonly injected: Counters;
  readonly polls: number;
  readonly durationMs: number;
  readonly scenario: Scenario;
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

function describeReport(report: ClubReport): string {
  const sources = report.sources.map(
    (s) => `${s.source} ${s.outcome}${s.reason ? ` (${s.reason})` : ''}, ${s.events} events`,
  );
  const failed = report.failures.map((f) => `${f.source} failed (${f.kind}): ${f.message}`);
  return `${report.outcome}${report.pausedUntil ? ` until ${report.pausedUntil}` : ''}: ${[...sources, ...failed].join('; ')}`;
}

const describe = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

/** For investigating a seed: what the run delivered and what the journal says. */
export interface ChaosInspection {
  readonly delivered: readonly BridgeEvent[];
  readonly journal: readonly JournalEntry[];
  readonly uncommittedEventIds: ReadonlySet<string>;
}

export interface ChaosRunOptions {
  /** Called with what the run delivered and the journal, before the verdict is returned. */
  readonly inspect?: (inspection: ChaosInspection) => void;
  /** Wraps the EventBridge sink (for tests of the verdict: a sink that loses an event). */
  readonly wrapSink?: (sink: EventSink) => EventSink;
}

export async function runChaos(
  seed: number,
  env: ChaosEnvironment,
  options: ChaosRunOptions = {},
): Promise<ChaosRunResult> {
  const started = Date.now();
  const scenario = scenarioFor(seed);
  const injector = new FaultInjector(seed, scenario.rates, scenario.crashes);
  const failures: string[] = [];
  // Everything started is closed in the finally below, whatever fails.
  const sandbox = await startSandbox({
    seed,
    clubs: [{ clubId: 'club-1', timeZone: scenario.sandbox.timeZone, members: scenario.sandbox.members }],
    historyDays: scenario.sandbox.historyDays,
    startTime: scenario.sandbox.startTime,
    activityScale: scenario.sandbox.activityScale,
    // Day passes, short trials, terms cut short: subjects that qualify after tracking began (issue 33).
    shortTerms: true,
    ambiguousZone: scenario.sandbox.ambiguousZone,
    ...(scenario.sandbox.dstTransition ? { dstTransition: scenario.sandbox.dstTransition } : {}),
  });
  const bus = await startLocalEventBridge({ seed }).catch(async (err: unknown) => {
    await sandbox.close();
    throw err;
  });
  const eventBridge = new EventBridgeClient({
    endpoint: bus.endpoint,
    region: 'us-east-1',
    credentials: CREDENTIALS,
    // The sink's own retries (failed entries alone, with backoff) are what is under test.
    maxAttempts: 1,
  });
  const dynamoConfig = { endpoint: env.dynamoEndpoint, region: 'us-east-1', credentials: CREDENTIALS };
  const dynamo = new DynamoDBClient(dynamoConfig);
  injectDynamoDbThrottling(dynamo, injector);
  // The harness's own reads go around the faults.
  const inspection = new DynamoDBClient(dynamoConfig);
  let tableName: string | undefined;
  // Credentials (issue 32): the bridge's log lines and bearer tokens while the run lasts.
  const watch = new CredentialWatch();
  try {
    tableName = await createTestTable(dynamo, 'chaos');
    const run = new ChaosRun(scenario, injector, sandbox, {
      store: new DynamoDbStateStore({
        client: dynamo,
        tableName,
        baseDelayMs: 1,
        maxDelayMs: 10,
        maxAttempts: scenario.storeMaxAttempts,
        now: () => sandbox.clock.now().getTime(),
      }),
      inspectionStore: new DynamoDbStateStore({ client: inspection, tableName }),
      sink: (options.wrapSink ?? ((sink) => sink))(
        new EventBridgeSink({ client: eventBridge, busName: 'chaos', baseDelayMs: 1, maxDelayMs: 8 }),
      ),
      faults: bus.faults,
      watch,
    });
    watch.start();
    await run.execute(failures).finally(() => watch.stop());
    injector.count('eventbridge-failed-entry', bus.stats.failedEntries);
    injector.count('eventbridge-throttle', bus.stats.throttledRequests);
    const all = bus.events.map((e) => ({ detailType: e.detailType, detail: e.detail }) as BridgeEvent);
    // Events of poison records (their markers) are accounted for apart: the journal has real changes only.
    const tableItems = await scanTable(inspection, tableName);
    const poison = await accountPoison(sandbox, all, run, failures, { watch, tableItems });
    const delivered = all.filter((e) => !poison.eventsOfPoison.has(e));
    // The changes of the sources the club polls (a run with lifecycle rounds polls four).
    const polled = new Set(run.club.sources ?? SOURCE_ORDER);
    const journal = sandbox.journal.entries(run.baselineSeq).filter((e) => {
      const source = JOURNAL_SOURCE[e.kind];
      return source === undefined || polled.has(source);
    });
    // Re-deliveries a crash between publish and commit explains, or a stale read of the same poll.
    const explained = new Set([...injector.uncommittedEventIds, ...injector.staleReadEventIds]);
    const check = checkAgainstJournal(journal, delivered, explained);
    options.inspect?.({ delivered, journal, uncommittedEventIds: explained });
    const lifecycle = await run.checkLifecycle(delivered, poison.eventsOfPoison, journal, failures);
    // Operational events: every announcement delivered, every committed condition announced.
    const operational = checkOperational({
      delivered: all,
      committed: run.committed,
      processes: injector.processes,
      staleAfterMs: DEFAULT_STALE_AFTER_MS,
    });
    if (operational.missing.length)
      failures.push(`operational missing: ${operational.missing.slice(0, 10).join('; ')}`);
    if (operational.spurious.length)
      failures.push(`operational spurious: ${operational.spurious.slice(0, 10).join('; ')}`);
    if (check.missing.length) failures.push(`missing: ${check.missing.slice(0, 10).join('; ')}`);
    if (check.spurious.length) failures.push(`spurious: ${check.spurious.slice(0, 10).join('; ')}`);
    if (check.unexplainedDuplicates.length) {
      failures.push(
        `duplicates without a crash between publish and commit: ${check.unexplainedDuplicates.slice(0, 10).join('; ')}`,
      );
    }
    if (check.idConflicts.length)
      failures.push(`one eventId for different changes: ${check.idConflicts.slice(0, 10).join('; ')}`);
    return {
      seed,
      ok: failures.length === 0,
      failures,
      check,
      lifecycle,
      operational,
      poison: poison.figures,
      injected: injector.injected,
      polls: run.polls,
      durationMs: Date.now() - started,
      scenario,
    };
  } finally {
    watch.stop();
    eventBridge.destroy();
    await Promise.allSettled([sandbox.close(), bus.close()]);
    if (tableName) await dynamo.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
    dynamo.destroy();
    inspection.destroy();
  }
}

/** Every item of a table (the credential check reads them all). */
async function scanTable(client: DynamoDBClient, tableName: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: tableName, ...(start ? { ExclusiveStartKey: start } : {}) }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

interface RunWiring {
  readonly store: DynamoDbStateStore;
  /** The same table without injected faults, for the harness's own reads. */
  readonly inspectionStore: DynamoDbStateStore;
  readonly sink: EventSink;
  readonly faults: { failEntryRate: number; throttleRate: number; reset(): void };
  /** Notes the bearer tokens the bridge sends (poison-check.ts). */
  readonly watch: CredentialWatch;
}

class ChaosRun {
  baselineSeq = 0;
  polls = 0;
  /** The club's cursors as committed after each poll, read around the faults (operational-check.ts). */
  readonly committed: Cursor[][] = [];
  /** The clock of each poll whose lifecycle evaluation completed (from its report). */
  readonly evaluations: { label: string; atMs: number }[] = [];
  /** How each poll's lifecycle ended (`outcome: reason`), counted: a verdict with no evaluation names them. */
  readonly lifecycleOutcomes = new Map<string, number>();
  /** The API's members, prospects and payments when the baseline ended, and the clock then. */
  #baseline: SandboxView['baseline'] | undefined;
  #baselineMs = 0;
  #settleStarted = false;
  /** The lifecycle rounds: every fault on but slow responses (they only make the long rounds long). */
  #quick = false;
  /** Every fault is off (the baseline's clean polls, settling): polls get CLEAN_POLL_MS. */
  #clean = false;
  /** This round's polls send a rotated API key (the API answers 401: Club Credentials Rejected). */
  #keyRotated = false;

  /** The club as polled, and the table read around the faults: for the poison accounting. */
  get club(): ClubConfig {
    return this.#club;
  }
  get inspectionStore(): DynamoDbStateStore {
    return this.wiring.inspectionStore;
  }

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
    // Reads across polls go stale at their own rate, drawn apart: the faults' dice stay as they were.
    this.#recentWrites = new RecentWrites(
      scenario.staleAcrossPolls > 0
        ? { rate: scenario.staleAcrossPolls, random: mulberry32(scenario.seed ^ 0x165667b1) }
        : undefined,
    );
    this.#laneDice = mulberry32(scenario.seed ^ 0x27d4eb2d);
  }

  async execute(failures: string[]): Promise<void> {
    const { scenario, injector, sandbox } = this;
    // 1. Silent baseline; the journal does not move, so it starts where the bridge's state does.
    this.#faultsOn({ changeData: false });
    injector.active = scenario.faultsInBaseline;
    for (let i = 0; i < 3 && !(await this.#baselineDone()); i++) await this.#poll('baseline', failures);
    this.#faultsOff();
    // The clock stands still during the baseline: a pause a 429 caused would never end.
    for (let i = 0; i < 4 && !(await this.#baselineDone()); i++) {
      await this.#poll('baseline-clean', failures, { ignorePause: true });
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
        this.#quick = true;
        Object.assign(sandbox.faults, { latencyMs: 0, latencyJitterMs: 0 });
      }
      sandbox.advance((round > scenario.rounds ? longStepMinutes : scenario.stepMinutes) * MINUTE);
      this.#keyRotated = round === rotatedKeyRound(scenario.seed, scenario.rounds);
      if (this.#keyRotated) injector.count('api-key-rotated');
      if (round === missingEndpointRound(scenario.seed, scenario.rounds)) {
        // From here until the faults are off, the experimental source's endpoint is missing.
        injector.count('endpoint-missing');
        sandbox.failNext(Number.POSITIVE_INFINITY, 404, { pathPrefix: OPERATIONS.classAttendance.path });
      }
      const before = sandbox.journal.lastSeq;
      const dice = injector.random();
      if (dice < scenario.raceRate) {
        injector.count('race');
        this.#nextPollWindow();
        await Promise.all([
          this.#poll(`race-a${round}`, failures, { newWindow: false }),
          this.#poll(`race-b${round}`, failures, { newWindow: false }),
        ]);
      } else if (dice < scenario.raceRate + scenario.shortDeadlineRate) {
        injector.count('short-deadline-poll');
        await this.#pollSourcesInHaste(`haste${round}`, failures);
      } else {
        await this.#poll(`round${round}`, failures, { probes: this.#laneRound() });
      }
      await this.#probes(round, failures);
      injector.count('changes-during-poll', sandbox.journal.lastSeq - before);
    }

    // 3. Faults off; the clock moves on (sweeps due, pauses over); poll until nothing new comes.
    this.#keyRotated = false;
    sandbox.clearFailures();
    this.#faultsOff();
    this.#settleStarted = true;
    sandbox.advance(SETTLE_ADVANCE_MS);
    await this.#waitOutPausesAndRetries();
    let quiet = false;
    let evaluated = false;
    let last = '';
    for (let i = 0; i < MAX_SETTLE_POLLS && !(quiet && evaluated); i++) {
      const report = await this.#poll(`settle${i + 1}`, failures);
      last = report ? describeReport(report) : 'the poll threw';
      const data = report?.sources.reduce((n, s) => n + s.events, 0) ?? -1;
      quiet =
        report !== undefined &&
        report.outcome === 'ok' &&
        report.sources.every((s) => s.outcome === 'completed') &&
        data === 0;
      // The lifecycle verdict needs an evaluation while settling: a poll short of time (a loaded
      // machine) leaves it waiting, its reading of the visit history going on in the next poll.
      evaluated = this.evaluations.some((e) => e.label.startsWith('settle'));
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
    const settled = this.evaluations.filter((e) => e.label.startsWith('settle')).at(-1);
    const stored = await this.wiring.inspectionStore.parts.lifecycle.getLifecycle(this.#club.clubId);
    const doc = stored?.doc as
      | { trackedSince?: string; trackedSinceMs?: number; seenFrom?: string }
      | undefined;
    if (!settled || !doc?.trackedSince || doc.trackedSinceMs === undefined || !this.#baseline) {
      failures.push(
        `lifecycle: no evaluation while settling, or no document (${this.evaluations.length} evaluations; the polls' lifecycle outcomes: ${JSON.stringify(Object.fromEntries(this.lifecycleOutcomes))})`,
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
    this.#clean = false;
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
    this.#clean = true;
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

  #process(label: string) {
    const process = this.injector.newProcess(label);
    const clients = new GymApiClientFactory({
      fetch: this.wiring.watch.watchFetch(
        faultyFetch(process, {
          jumpClock: () => this.sandbox.advance(this.scenario.api.clockJumpSec * 1000),
        }),
      ),
      // Short timeouts are a fault: the settling polls use the client's default.
      ...(this.injector.active && !this.#quick
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
  #nextPollWindow(): void {
    this.injector.leaseClockOffsetMs += POLL_SPACING_MS;
  }

  /** The club as this round polls it: with a rotated API key in the round that has one. */
  #polledClub(): ClubConfig {
    const club = this.#club;
    if (!this.#keyRotated) return club;
    return { ...club, credentials: { ...club.credentials, apiKey: `${club.credentials.apiKey}-rotated` } };
  }

  /** One poll of the club by a fresh poller process (one Lambda invocation). */
  async #poll(
    label: string,
    failures: string[],
    options: { newWindow?: boolean; ignorePause?: boolean; probes?: boolean } = {},
  ): Promise<ClubReport | undefined> {
    if (options.newWindow ?? true) this.#nextPollWindow();
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
          deadlineMs: Date.now() + (this.#clean ? CLEAN_POLL_MS : POLL_MS),
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
      if (report.lifecycle?.outcome === 'failed' && this.#settleStarted)
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
  #laneRound(): boolean {
    return this.#laneDice() < this.scenario.fastLane.rate;
  }

  /**
   * The fast lane's probes after a round, 15 s apart: each a poller process of its own through the
   * one message path's fast lane (probe, then a session when a visit came). A probe no poll paid
   * for (after a race or a hasty round: perhaps while a scan is in progress) asks nothing.
   */
  async #probes(round: number, failures: string[]): Promise<void> {
    const lane = this.scenario.fastLane;
    if (lane.rate === 0) return;
    for (let k = 1; k <= lane.probes; k++) {
      this.sandbox.advance(PROBE_STEP_MS);
      this.#nextPollWindow();
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
  async #pollSourcesInHaste(label: string, failures: string[]): Promise<void> {
    this.#nextPollWindow();
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
