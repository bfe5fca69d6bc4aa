/**
 * Stale poll messages through the one message path (pollClubMessage), on the sandbox (real HTTP)
 * and dynalite: a message dispatched before a later poll covered its sources polls nothing and
 * releases the lease; one whose sources were partly covered polls only the rest. The check is made
 * on the cursors the lease write returns: the only state reads are the ones of a poll.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { type ClubConfig, parseClubsFile } from '../../../lambdas/clubs/club-config';
import { GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
import { pollClubMessage } from '../../../lambdas/engine/poll-message/poll-club-message';
import { MemorySink } from '../../../lambdas/events/publisher';
import { DynamoDbStateStore } from '../../../lambdas/state';
import { type BridgeStateStore, decorateStore } from '../../../lambdas/state/state-store';
import { useEngineRig } from '../../support/engine-rig';

const MINUTE = 60_000;

/** The store with a tally of its ports' calls, by method (decorateStore, state-store.ts). */
function tallied(store: BridgeStateStore): { store: BridgeStateStore; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const decorated = decorateStore(store, (method, _args, call) => {
    calls.set(method, (calls.get(method) ?? 0) + 1);
    return call();
  });
  return { store: decorated, calls };
}

describe('a stale poll message', () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 31,
      clubs: [{ clubId: 'club-1', timeZone: 'Europe/London', members: 40, open24h: true }],
      historyDays: 1,
      startTime: '2026-05-04T08:00:00Z',
      activityScale: 8,
    },
    pollMs: 30_000,
  });
  let club: ClubConfig;
  let requests: number;
  let tally: ReturnType<typeof tallied>;

  beforeEach(async () => {
    club = parseClubsFile(rig.sandbox.clubsFile())[0]!;
    requests = 0;
    tally = tallied(
      new DynamoDbStateStore({ client: rig.db.client, tableName: await rig.newTable('stale') }),
    );
  });

  const handle = (sources: ClubConfig['sources'] & object, dispatchedAt: string) =>
    pollClubMessage(
      {
        store: tally.store,
        sink: new MemorySink(),
        now: rig.now,
        loadClub: async () => ({ status: 'ready', config: club }),
        clients: new GymApiClientFactory({
          retry: { baseDelayMs: 1, maxDelayMs: 5 },
          fetch: (input, init) => {
            requests++;
            return fetch(input, init);
          },
        }),
      },
      { clubId: club.clubId, sources: [...sources], dispatchedAt },
      { deadlineMs: rig.deadline(), owner: `stale-${requests}-${Date.now()}` },
    );

  it('polls nothing when every source was polled since it was dispatched, and leaves the lease free', async () => {
    // Prepare: a message polled once; the same message again (a duplicate delivery)
    const dispatchedAt = new Date(rig.now() - MINUTE).toISOString();
    const first = await handle(['visits', 'members'], dispatchedAt);
    const requestsBefore = requests;
    tally.calls.clear();

    // Act
    const again = await handle(['visits', 'members'], dispatchedAt);

    // Assess: skipped, no API request, one lease write and its release, no read of its own
    expect(first.outcome).toBe('polled');
    expect(again.outcome).toBe('skipped');
    expect(requests).toBe(requestsBefore);
    expect(Object.fromEntries(tally.calls)).toEqual({ openClub: 1 });
    const next = await tally.store.openClub(club.clubId, 'another-poller', 60_000, Date.now());
    expect(next).toBeDefined();
    await next?.close();
  }, 60_000);

  it('polls only the sources no later poll covered', async () => {
    // Prepare: visits polled after the dispatch, members not
    const dispatchedAt = new Date(rig.now() - MINUTE).toISOString();
    await handle(['visits'], dispatchedAt);

    // Act
    const result = await handle(['visits', 'members'], dispatchedAt);

    // Assess
    expect(result.outcome).toBe('polled');
    expect(result.report?.sources.map((s) => s.source)).toEqual(['members']);
  }, 60_000);
});
