/**
 * An explicit backfill (`--backfill-from T`) against the sandbox and dynalite: it publishes every
 * record in [T, now] whatever the regular polls already saw, with the eventIds those polls used,
 * and it leaves the regular polls' cursor (watermark, scan, sweep timing) alone, also when it runs
 * over many invocations.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GymApiClientFactory } from '../../../lambdas/engine/client-factory';
import { type ClubConfig, parseClubsFile } from '../../../lambdas/engine/club-config';
import { pollClub } from '../../../lambdas/engine/poll-club';
import { pollSource } from '../../../lambdas/engine/poll-source';
import type { BridgeEvent } from '../../../lambdas/events/catalog';
import { MemorySink } from '../../../lambdas/events/publisher';
import { type Sandbox, startSandbox } from '../../../lambdas/sandbox';
import { SOURCES } from '../../../lambdas/sources';
import { type Cursor, DynamoDbStateStore } from '../../../lambdas/state';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** Data events only (operational ones, e.g. Club Data Stale, are not about records). */
const dataEvents = (events: readonly BridgeEvent[]) => events.filter((e) => e.detail.source !== 'bridge');
const ids = (events: readonly BridgeEvent[]) => new Set(dataEvents(events).map((e) => e.detail.eventId));
const sorted = (set: Set<string>) => [...set].sort();

/** The fields of a cursor that belong to the regular polls. */
const regular = (c: Cursor) => ({
  watermark: c.watermark,
  baselineDone: c.baselineDone,
  scan: c.scan,
  lastSweepAtMs: c.stats?.lastSweepAtMs,
});

describe('backfill', () => {
  let db: Dynalite;
  let sandbox: Sandbox;
  let club: ClubConfig;
  const clients = new GymApiClientFactory();
  const now = () => sandbox.clock.now().getTime();
  const deadline = () => Date.now() + 60_000;

  beforeAll(async () => {
    db = await startDynalite();
  });
  afterAll(async () => {
    await db.close();
  });
  beforeEach(async () => {
    sandbox = await startSandbox({
      seed: 5,
      clubs: 1,
      members: 150,
      historyDays: 4,
      startTime: '2026-05-04T08:00:00Z',
      activityScale: 6,
    });
    club = { ...parseClubsFile(sandbox.clubsFile())[0]!, piiPolicy: 'full' };
  });
  afterEach(async () => {
    await sandbox.close();
  });

  const table = async (name: string) =>
    new DynamoDbStateStore({ client: db.client, tableName: await createTestTable(db.client, name), now });

  const poll = (store: DynamoDbStateStore, sink: MemorySink, backfillFromMs?: number) =>
    pollClub({ store, sink, clients, owner: 't', now }, club, {
      deadlineMs: deadline(),
      ...(backfillFromMs === undefined ? {} : { backfillFromMs }),
    });

  it('after a baseline publishes what a backfill on a fresh table publishes, and leaves the regular cursor alone', async () => {
    // Prepare: table A has a baseline; table B is fresh. Same sandbox time for both.
    const from = now() - 3 * DAY;
    const baselined = await table('bf-a');
    const fresh = await table('bf-b');
    await poll(baselined, new MemorySink());
    const before = (await baselined.listCursors(club.clubId)).map(regular);
    // Act
    const afterBaseline = new MemorySink();
    const onFresh = new MemorySink();
    const a = await poll(baselined, afterBaseline, from);
    const b = await poll(fresh, onFresh, from);
    // Assess
    expect(a.failures).toEqual([]);
    expect(b.failures).toEqual([]);
    const got = ids(afterBaseline.events);
    const want = ids(onFresh.events);
    expect(want.size).toBeGreaterThan(200);
    expect(sorted(got)).toEqual(sorted(want));
    // The regular polls' cursor fields are the baseline's: the backfill moved none of them.
    expect((await baselined.listCursors(club.clubId)).map(regular)).toEqual(before);
    // Nothing pending once it completed.
    for (const c of await baselined.listCursors(club.clubId)) {
      expect(c.backfillFrom, c.source).toBeUndefined();
      expect(c.backfillScan, c.source).toBeUndefined();
    }
  });
});
