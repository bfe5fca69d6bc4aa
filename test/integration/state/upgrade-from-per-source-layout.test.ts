/**
 * The upgrade path (docs/state.md, "Upgrading from the per-source layout"): a table written by the
 * releases before the club state item (a CURSOR#<source> item per source, LEASE#CLUB, QUOTA#<month>)
 * is read by the new code for a club whose state item was never committed, and the first poll
 * commits the state item. Watermarks carry over (no event re-published), the month's counter
 * carries over, and a poller of the previous version still running is kept out.
 */
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClubConfig, parseClubsFile } from '../../../lambdas/clubs/club-config';
import { GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
import { pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import { MemorySink } from '../../../lambdas/events/publisher';
import { SOURCE_ORDER } from '../../../lambdas/sources';
import { DynamoDbStateStore } from '../../../lambdas/state';
import { MIGRATED_LEASE_OWNER } from '../../../lambdas/state/dynamodb/previous-layout';
import { startSandbox } from '../../../sandbox';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';
import { actualKeys, compare, expectedKeys } from '../../support/ground-truth';

const MINUTE = 60_000;

describe('upgrading a table of the per-source layout', () => {
  let db: Dynalite;
  let doc: DynamoDBDocumentClient;
  let tableName: string;
  let store: DynamoDbStateStore;

  beforeAll(async () => {
    db = await startDynalite();
    doc = DynamoDBDocumentClient.from(db.client);
  });
  afterAll(async () => {
    await db.close();
  });

  const put = (item: Record<string, unknown>) =>
    doc.send(new PutCommand({ TableName: tableName, Item: item }));
  const get = async (pk: string, sk: string) =>
    (await doc.send(new GetCommand({ TableName: tableName, Key: { pk, sk }, ConsistentRead: true }))).Item;

  /** Rewrites a club's committed state as the previous releases stored it, and drops the state item. */
  async function toPreviousLayout(clubId: string, month: string) {
    for (const cursor of await store.view(clubId).listCursors()) {
      await put({ ...cursor, pk: `CLUB#${clubId}`, sk: `CURSOR#${cursor.source}` });
    }
    await put({
      pk: `CLUB#${clubId}`,
      sk: `QUOTA#${month}`,
      requests: await store.view(clubId).getQuotaUsage(month),
    });
    await doc.send(new DeleteCommand({ TableName: tableName, Key: { pk: `CLUB#${clubId}`, sk: 'STATE' } }));
  }

  it('carries on from the old watermarks: the changes since, each once, and no old event again', async () => {
    // Prepare: a club polled to its baseline, its state then rewritten in the previous layout
    tableName = await createTestTable(db.client, 'upgrade');
    store = new DynamoDbStateStore({ client: db.client, tableName });
    // A fixed start (18:05 in the club's zone, a busy evening with classes): the same journal at any hour.
    const sandbox = await startSandbox({
      seed: 9,
      clubs: 1,
      members: 80,
      historyDays: 2,
      activityScale: 8,
      startTime: '2026-11-24T07:05:00.000Z',
    });
    // Every source, the experimental classAttendance too (opt-in: not in the default sources), so
    // that every journal entry is one the club polls, whatever the time of day the test runs at.
    const [club] = parseClubsFile(sandbox.clubsFile()).map((c) => ({
      ...c,
      piiPolicy: 'full',
      sources: [...SOURCE_ORDER],
    })) as ClubConfig[];
    const sink = new MemorySink();
    const deps = {
      store,
      sink,
      clients: new GymApiClientFactory(),
      owner: 'new',
      now: () => sandbox.clock.now().getTime(),
    };
    const poll = () => pollClub(deps, club!, { deadlineMs: Date.now() + 60_000 });
    await poll();
    sandbox.advance(30 * MINUTE);
    await poll();
    const month = new Date(sandbox.clock.now().getTime()).toISOString().slice(0, 7);
    const before = await store.view(club!.clubId).listCursors();
    const usedBefore = await store.view(club!.clubId).getQuotaUsage(month);
    await toPreviousLayout(club!.clubId, month);
    const published = sink.events.length;
    const fromSeq = sandbox.journal.lastSeq;

    // Act: the new code reads the old layout, polls, and commits the state item
    sandbox.advance(30 * MINUTE);
    const boundary = sandbox.journal.lastSeq;
    const report = await poll();

    // Assess
    expect(report.failures).toEqual([]);
    const result = compare(
      expectedKeys(sandbox.journal.entries(fromSeq), [boundary]),
      actualKeys(sink.events.slice(published)),
    );
    expect(result.expected).toBeGreaterThan(0);
    expect(result.missing).toEqual([]);
    expect(result.spurious).toEqual([]);
    const after = await store.view(club!.clubId).listCursors();
    expect(after.map((c) => c.source)).toEqual(before.map((c) => c.source));
    for (const c of after) {
      const old = before.find((b) => b.source === c.source)!;
      expect(c.baselineDone).toBe(old.baselineDone);
      expect(c.watermark! >= old.watermark!).toBe(true);
    }
    expect(await store.view(club!.clubId).getQuotaUsage(month)).toBe(usedBefore + report.requests);
    expect(await get(`CLUB#${club!.clubId}`, 'STATE')).toMatchObject({ v: expect.any(Number) });
    expect(await get(`CLUB#${club!.clubId}`, 'LEASE#CLUB')).toMatchObject({ owner: MIGRATED_LEASE_OWNER });

    // And a poll after it, with nothing new, publishes nothing
    const settled = sink.events.length;
    await poll();
    expect(sink.events.length).toBe(settled);
    await sandbox.close();
  }, 60_000);

  it('keeps out a poller of the previous version, and is kept out by one still polling', async () => {
    // Prepare: the old layout, with an old poller holding LEASE#CLUB
    tableName = await createTestTable(db.client, 'upgrade-lease');
    store = new DynamoDbStateStore({ client: db.client, tableName });
    const now = Date.UTC(2026, 10, 24, 12, 0, 0);
    await put({
      pk: 'CLUB#c1',
      sk: 'CURSOR#visits',
      clubId: 'c1',
      source: 'visits',
      version: 4,
      watermark: 'w',
      baselineDone: true,
      health: { consecutiveFailures: 0 },
    });
    await put({ pk: 'CLUB#c1', sk: 'QUOTA#2026-11', requests: 500 });
    await put({ pk: 'CLUB#c1', sk: 'LEASE#CLUB', owner: 'old-poller', expiresAtMs: now + 90_000 });

    // Act / Assess: held by the old poller: skipped, and the new lease let go
    expect(await store.openClub('c1', 'new-poller', 60_000, now)).toBeUndefined();
    expect(await get('CLUB#c1', 'STATE')).not.toHaveProperty('lo');

    // Its lease expired: the new code claims the old lease for a day and reads the old state
    const session = await store.openClub('c1', 'new-poller', 60_000, now + 91_000);
    expect(session).toBeDefined();
    const cursor = await session!.getCursor('visits');
    expect([cursor.version, cursor.watermark, cursor.baselineDone]).toEqual([4, 'w', true]);
    expect(await session!.getQuotaUsage('2026-11')).toBe(500);
    expect(await session!.addQuotaUsage('2026-11', 3)).toBe(503);
    await session!.close();

    // An old poller's acquire (a conditional put on LEASE#CLUB) now fails for a day
    const oldAcquire = doc.send(
      new PutCommand({
        TableName: tableName,
        Item: { pk: 'CLUB#c1', sk: 'LEASE#CLUB', owner: 'old-2', expiresAtMs: now + 200_000 },
        ConditionExpression: 'attribute_not_exists(pk) OR expiresAtMs <= :now OR #owner = :owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':now': now + 100_000, ':owner': 'old-2' },
      }),
    );
    await expect(oldAcquire).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    // The state item is now the truth: the old items are not read again
    await put({
      pk: 'CLUB#c1',
      sk: 'CURSOR#visits',
      clubId: 'c1',
      source: 'visits',
      version: 9,
      watermark: 'stale',
      baselineDone: true,
      health: { consecutiveFailures: 0 },
    });
    expect((await store.view('c1').getCursor('visits')).watermark).toBe('w');
    expect(await store.view('c1').getQuotaUsage('2026-11')).toBe(503);
  });
});
