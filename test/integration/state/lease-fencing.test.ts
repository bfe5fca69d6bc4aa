/**
 * Fencing of a poll's writes by its lease, against dynalite: the club state item's writes are
 * conditional on the owner, an unexpired lease and the version the session holds; the poll's other
 * writes (seen set, snapshots, quarantine) check the lease first; and a poll whose close fails
 * fails (its message comes back) instead of being reported done.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClubConfig, parseClubsFile } from '../../../lambdas/clubs/club-config';
import { GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
import { pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import { MemorySink } from '../../../lambdas/events/publisher';
import { DynamoDbStateStore } from '../../../lambdas/state';
import { LeaseLostError } from '../../../lambdas/state/club-session';
import { startSandbox } from '../../../sandbox';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';

const MINUTE = 60_000;

describe('a poll writes only while it holds its lease', () => {
  let db: Dynalite;
  let clock = Date.UTC(2026, 10, 26, 12, 0, 0);
  const now = () => clock;

  beforeAll(async () => {
    db = await startDynalite();
  });
  afterAll(async () => {
    await db.close();
  });

  const newStore = async (name: string) =>
    new DynamoDbStateStore({ client: db.client, tableName: await createTestTable(db.client, name), now });

  it('a session whose lease expired writes nothing, and a poller that took over keeps what it wrote', async () => {
    // Prepare: poller A opens with a one-minute lease and changes a cursor
    const store = await newStore('fence-expired');
    const a = (await store.openClub('c1', 'poller-a', MINUTE, now()))!;
    const cursor = await a.getCursor('visits');
    await a.putCursor({ ...cursor, watermark: '2026-11-26T11:00:00.000Z' });
    // Act: A is slow; its lease runs out, B takes the club and commits
    clock += 2 * MINUTE;
    const b = (await store.openClub('c1', 'poller-b', MINUTE, now()))!;
    expect(b).toBeDefined();
    const fresh = await b.getCursor('visits');
    await b.putCursor({ ...fresh, watermark: '2026-11-26T11:59:00.000Z' });
    await b.close();
    // Assess: A's close is refused, B's state stands
    await expect(a.close()).rejects.toBeInstanceOf(LeaseLostError);
    expect((await store.view('c1').getCursor('visits')).watermark).toBe('2026-11-26T11:59:00.000Z');
  });

  it('refuses a write whose lease has expired even when nobody took the club', async () => {
    const store = await newStore('fence-alone');
    const session = (await store.openClub('c1', 'poller-a', MINUTE, now()))!;
    const cursor = await session.getCursor('visits');
    await session.putCursor({ ...cursor, watermark: '2026-11-26T11:00:00.000Z' });
    clock += 2 * MINUTE;
    await expect(session.checkpoint()).rejects.toBeInstanceOf(LeaseLostError);
    expect((await store.view('c1').getCursor('visits')).watermark).toBeUndefined();
  });

  it('the seen set, snapshots and quarantine are not written once the lease is gone', async () => {
    const base = await newStore('fence-others');
    const session = (await base.openClub('c1', 'poller-a', MINUTE, now()))!;
    await session.putSeen('visits', ['fp-1'], Math.floor(now() / 1000) + 3600);
    clock += MINUTE;
    await expect(session.putSeen('visits', ['fp-2'], Math.floor(now() / 1000) + 3600)).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    await expect(
      session.putSnapshots('MEMBER', [
        { id: 'm1', hash: 'h', fields: {}, updatedAt: new Date(now()).toISOString() },
      ]),
    ).rejects.toBeInstanceOf(LeaseLostError);
    const seen = await base.parts.seen.filterSeen('c1', 'visits', ['fp-1', 'fp-2'], Math.floor(now() / 1000));
    expect([...seen]).toEqual(['fp-1']);
  });

  it('a poll whose close fails throws: the message comes back instead of being deleted', async () => {
    // Prepare: a sandbox club; the store's clock jumps past the poll's lease while it polls
    const sandbox = await startSandbox({ seed: 3, clubs: 1, members: 20, historyDays: 1 });
    try {
      const store = await newStore('fence-poll');
      const club: ClubConfig = parseClubsFile(sandbox.clubsFile())[0]!;
      const deadlineMs = Date.now() + 20_000;
      const sink = new MemorySink();
      // The poll runs past its lease: the store's clock jumps 10 minutes at its first request.
      const clients = new GymApiClientFactory({
        fetch: (input, init) => {
          if (!String(input).endsWith('/token')) clock += 10 * MINUTE;
          return fetch(input, init);
        },
      });
      const polling = pollClub({ store, sink, clients, owner: 'slow-poller', now }, club, {
        deadlineMs,
        sources: ['members'],
      });
      // Act / Assess
      await expect(polling).rejects.toBeInstanceOf(LeaseLostError);
    } finally {
      await sandbox.close();
    }
  });
});
