/**
 * The big club's lifecycle (issue 33): a club of 50,000 members and 5,000 prospects whose every
 * member comes due in the same hour (each lapses inactiveDays after a last visit in the hour before),
 * evaluated once as the poll function runs it, in the worst form it takes: its notes say nothing
 * (a status run over the whole club), so it reads every snapshot, finds 50,000 Member Inactive, keeps
 * them pending, publishes them, rebases and empties the delta.
 *
 * The state table is dynalite in its own process, seeded here through the real store (snapshots,
 * cursors, the lifecycle base, the club state item). The evaluation runs in a child process bundled
 * with esbuild, under the heap flags Lambda's Node runtime gives the poll function (old space 90%,
 * semi-space 5%: bench/invocation-memory.ts), its RSS sampled every 10 ms. The sink validates and
 * batches every event as EventBridgeSink does, without the network. Figures: the evaluation's wall
 * time, the peak RSS, the items and bytes it asked the table to write (and read), the events, and
 * what that hour costs.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ClubConfig } from '../lambdas/clubs/club-config';
import { awsClientConfig } from '../lambdas/common/aws-clients';
import { DAY_MS, MINUTE_MS } from '../lambdas/common/time-units';
import { hourOf, type LifecycleReport } from '../lambdas/lifecycle/club-lifecycle';
import { addLocalDays, localAt } from '../lambdas/lifecycle/rules';
import { DynamoDbStateStore, newCursor, type Snapshot } from '../lambdas/state';
import { createStateTable } from '../lambdas/state/table';
import type { SinkCounts } from './counting-sink';
import type { DeploymentSettings } from './deployment';
import { bundleEsm } from './esm-bundle';
import { HostProcess } from './hosts/rpc';
import { PRICES } from './prices';
import { say } from './progress';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DYNALITE_HOST = new URL('./hosts/dynalite-host.ts', import.meta.url);
const TABLE = 'big-club-lifecycle';
/** The evaluation's clock: a Sydney morning (any instant would do). */
const NOW_MS = Date.parse('2026-03-20T03:10:00Z');

export interface LifecycleBigClubOptions {
  readonly members: number;
  readonly prospects: number;
}

export interface LifecycleBigClubFigures {
  readonly members: number;
  readonly prospects: number;
  /** Members whose Member Inactive comes due in the evaluated hour. */
  readonly dueInOneHour: number;
  readonly eventsPublished: number;
  readonly evaluationSeconds: number;
  readonly peakRssMb: number;
  readonly functionMb: number;
  /** The evaluation did not complete (the report's error, or the child's). */
  readonly failed: boolean;
  readonly error?: string;
  readonly read?: string;
  readonly itemsWritten: number;
  readonly bytesWritten: number;
  readonly writeUnits: number;
  readonly byOperation: Record<string, { calls: number; items: number; bytes: number }>;
  readonly putEventsRequests: number;
  /** That hour's bill: DynamoDB writes (on demand), EventBridge events, the poll function's time. */
  readonly usd: {
    readonly dynamoWrites: number;
    readonly events: number;
    readonly lambda: number;
    readonly total: number;
  };
}

const SAMPLER = `let peak = 0;
const sample = () => { peak = Math.max(peak, process.memoryUsage().rss); };
setInterval(sample, 10).unref();
process.on('exit', () => { sample(); require('node:fs').writeFileSync(process.env.RSS_OUT, String(peak)); });
`;

const CLUB: ClubConfig = {
  clubId: 'big-club',
  baseUrl: 'http://127.0.0.1:1/v1',
  timeZone: 'Australia/Sydney',
  plan: 'advanced',
  credentials: { username: 'u', password: 'p', apiKey: 'k' },
  enabled: true,
  piiPolicy: 'minimal',
  unstatedZone: 'local',
  unstatedZoneConfirmed: true,
  sources: ['members', 'prospects', 'visits', 'paymentHistory'],
  lifecycle: { enabled: true, inactiveDays: 14, expiringDays: 14, trialEndingHours: 24 },
};

const memberFields = (i: number) => ({
  status: 'Active',
  cancellationDate: null,
  optOutEmail: i % 7 === 0,
  optOutSms: false,
  startDate: '2024-01-01T00:00:00',
  expiryDate: i % 5 === 0 ? '2027-01-01T00:00:00' : null,
  minimumTermDate: i % 3 === 0 ? '2024-07-01T00:00:00' : null,
  changes: 0,
  firstStatus: 'Active',
});

/** Seeds the club: snapshots, cursors, the lifecycle base (every member lapsing this hour), its state. */
async function seed(store: DynamoDbStateStore, options: LifecycleBigClubOptions): Promise<number> {
  const zone = CLUB.timeZone;
  const updatedAt = new Date(NOW_MS - 30 * DAY_MS).toISOString();
  const members: Snapshot[] = Array.from({ length: options.members }, (_, i) => ({
    id: String(100_001 + i),
    hash: `h${i}`,
    fields: memberFields(i),
    updatedAt,
  }));
  const trial = addLocalDays(localAt(NOW_MS, zone), 10);
  const prospects: Snapshot[] = Array.from({ length: options.prospects }, (_, i) => ({
    id: `P${String(i + 1).padStart(6, '0')}`,
    hash: `p${i}`,
    fields:
      i % 10 === 0
        ? { status: 'OnTrial', trialEndDate: trial, changes: 1 }
        : { status: 'Enquiry', changes: 0 },
    updatedAt,
  }));
  const session = await store.openClub(CLUB.clubId, 'seed', 10 * 60_000, NOW_MS - 2 * MINUTE_MS);
  if (!session) throw new Error('big club: the seeding lease is held');
  await session.putSnapshots('MEMBER', members);
  await session.putSnapshots('PROSPECT', prospects);
  const trackedSinceMs = NOW_MS - 20 * DAY_MS;
  const trackedSince = localAt(trackedSinceMs, zone);
  // Each member's last visit 14 days and 1 to 55 minutes ago: every lapse comes due in the last hour.
  const life = Object.fromEntries(
    members.map((m, i) => [
      m.id,
      { lastVisitAt: localAt(NOW_MS - 14 * DAY_MS - ((i % 55) + 1) * MINUTE_MS, zone) },
    ]),
  );
  const view = {
    members: Object.fromEntries(members.map((m, i) => [m.id, { ...pick(memberFields(i)) }])),
    prospects: Object.fromEntries(
      prospects.map((p) => [p.id, { status: p.fields.status, trialEndDate: p.fields.trialEndDate ?? null }]),
    ),
  };
  const base = {
    version: 1,
    trackedSince,
    trackedSinceMs,
    seenFrom: addLocalDays(trackedSince, -14),
    members: life,
    prospects: {},
    view,
    writtenAtMs: NOW_MS - 50 * MINUTE_MS,
  };
  await session.putLifecycle(base, 0);
  for (const source of CLUB.sources ?? []) {
    const lastSuccessAt = new Date(NOW_MS - 2 * MINUTE_MS).toISOString();
    const cursor = { ...newCursor(CLUB.clubId, source), baselineDone: true, watermark: lastSuccessAt };
    await session.putCursor({ ...cursor, health: { ...cursor.health, lastSuccessAt } });
  }
  session.markLifecycleHour(hourOf(CLUB.clubId, NOW_MS) - 1);
  // A status run over the whole club: the notes cannot tell it, the evaluation reads everything.
  session.noteLifecycle({ full: true });
  await session.close();
  return members.length;
}

const pick = (f: ReturnType<typeof memberFields>) => ({
  status: f.status,
  startDate: f.startDate,
  expiryDate: f.expiryDate,
  minimumTermDate: f.minimumTermDate,
  cancellationDate: f.cancellationDate,
});

function bundleChild(dir: string): Promise<string> {
  return bundleEsm(join(ROOT, 'bench/lifecycle-big-club-child.ts'), join(dir, 'child.mjs'));
}

interface ChildResult {
  readonly report?: LifecycleReport;
  readonly seconds: number;
  readonly sink: SinkCounts;
  readonly written: { items: number; bytes: number; byOperation: LifecycleBigClubFigures['byOperation'] };
}

/** One evaluation of the big club, every member due in its hour, under the poll function's heap. */
export async function measureLifecycleBigClub(
  options: LifecycleBigClubOptions,
  deployment: DeploymentSettings,
): Promise<LifecycleBigClubFigures> {
  const functionMb = deployment.poll.memoryMb;
  const heapFlags = [
    `--max-old-space-size=${Math.floor(functionMb * 0.9)}`,
    `--max-semi-space-size=${Math.floor(functionMb * 0.05)}`,
  ];
  const dir = await mkdtemp(join(tmpdir(), 'gym-bridge-big-lifecycle-'));
  const db = HostProcess.start(DYNALITE_HOST, 4096);
  try {
    const [{ endpoint }, child] = await Promise.all([
      db.call<{ endpoint: string }>('start'),
      bundleChild(dir),
    ]);
    const client = new DynamoDBClient({
      ...awsClientConfig(),
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    });
    await createStateTable(client, TABLE);
    const seeding = performance.now();
    const due = await seed(new DynamoDbStateStore({ client, tableName: TABLE }), options);
    say(
      `lifecycle, big club: seeded ${options.members} members, ${options.prospects} prospects in ${((performance.now() - seeding) / 1000).toFixed(0)} s`,
    );
    await writeFile(join(dir, 'rss.cjs'), SAMPLER);
    const out = join(dir, 'out.json');
    const rssOut = join(dir, 'rss');
    let childError: string | undefined;
    await run(process.execPath, [...heapFlags, '--require', join(dir, 'rss.cjs'), child], {
      env: {
        ...process.env,
        RSS_OUT: rssOut,
        BIG_CLUB_OUT: out,
        BIG_CLUB_ENDPOINT: endpoint,
        BIG_CLUB_TABLE: TABLE,
        BIG_CLUB_NOW_MS: String(NOW_MS),
        BIG_CLUB_CONFIG: JSON.stringify(CLUB),
      },
      maxBuffer: 16 * 1024 * 1024,
    }).catch((err: { stderr?: string; message: string }) => {
      childError = (err.stderr || err.message).slice(0, 500);
    });
    const peakRssMb = Number(await readFile(rssOut, 'utf8').catch(() => '0')) / 1024 / 1024;
    const result = childError ? undefined : (JSON.parse(await readFile(out, 'utf8')) as ChildResult);
    return figures(options, due, functionMb, peakRssMb, result, childError);
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function figures(
  options: LifecycleBigClubOptions,
  due: number,
  functionMb: number,
  peakRssMb: number,
  result: ChildResult | undefined,
  childError: string | undefined,
): LifecycleBigClubFigures {
  const report = result?.report;
  const error = childError ?? (report?.outcome === 'evaluated' ? undefined : JSON.stringify(report));
  const written = result?.written ?? { items: 0, bytes: 0, byOperation: {} };
  // A unit per started KB of each item: the bytes in KB plus one per item bound it from above.
  const writeUnits = Math.ceil(written.bytes / 1024) + written.items;
  const eventsPublished = result?.sink.events ?? 0;
  const seconds = result?.seconds ?? 0;
  const usd = {
    dynamoWrites: writeUnits * PRICES.dynamoWriteUnit.usd,
    events: (result?.sink.billedEvents ?? 0) * PRICES.eventBridgeEvent.usd,
    lambda: seconds * (functionMb / 1024) * PRICES.lambdaArmGbSecond.usd,
  };
  const out: LifecycleBigClubFigures = {
    members: options.members,
    prospects: options.prospects,
    dueInOneHour: due,
    eventsPublished,
    evaluationSeconds: seconds,
    peakRssMb,
    functionMb,
    failed: error !== undefined,
    ...(error === undefined ? {} : { error }),
    ...(report?.outcome === 'evaluated' ? { read: report.read } : {}),
    itemsWritten: written.items,
    bytesWritten: written.bytes,
    writeUnits,
    byOperation: written.byOperation,
    putEventsRequests: result?.sink.putEventsRequests ?? 0,
    usd: { ...usd, total: usd.dynamoWrites + usd.events + usd.lambda },
  };
  say(
    `lifecycle, big club: ${out.members} members, ${out.dueInOneHour} due in one hour: ${out.failed ? `FAILED (${out.error})` : `${out.eventsPublished} events`} in ${seconds.toFixed(1)} s, RSS peak ${peakRssMb.toFixed(0)} MB of ${functionMb}, ${out.itemsWritten} items (${(out.bytesWritten / 1e6).toFixed(1)} MB) written, $${out.usd.total.toFixed(4)}`,
  );
  return out;
}
