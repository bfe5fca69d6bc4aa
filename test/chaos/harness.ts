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
 * This file wires one run (the sandbox, the bus, the table and the faults at their layers) and gives
 * its verdict: the events on the bus are checked against the journal (journal-check.ts), the
 * lifecycle facts (lifecycle-check.ts), the committed state's operational conditions
 * (operational-check.ts) and the poison accounting (poison-check.ts). The run's phases are
 * run-phases.ts; each poll there is a poller process of pollers.ts.
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
import type { BridgeEvent } from '../../lambdas/events/catalog';
import { EventBridgeSink, type EventSink } from '../../lambdas/events/publisher';
import { SOURCE_ORDER } from '../../lambdas/sources';
import { DEFAULT_STALE_AFTER_MS } from '../../lambdas/sources/operational-events';
import { DynamoDbStateStore, type SourceName } from '../../lambdas/state';
import { startLocalEventBridge } from '../../local-aws/local-eventbridge';
import { type JournalEntry, startSandbox } from '../../sandbox';
import { createTestTable } from '../support/dynalite';
import { injectDynamoDbThrottling } from '../support/fault-dynamodb';
import { type Counters, FaultInjector } from '../support/fault-injector';
import { checkAgainstJournal, type JournalCheck } from './journal-check';
import type { LifecycleCheck } from './lifecycle-check';
import { checkOperational, type OperationalCheck } from './operational-check';
import { accountPoison, CredentialWatch, type PoisonFigures } from './poison-check';
import { ChaosRun } from './run-phases';
import { type Scenario, scenarioFor } from './scenario';

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
