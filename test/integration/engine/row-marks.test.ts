/**
 * Row marks (docs/state.md, "Rows the last scan committed") through pollClub, on the sandbox (real
 * HTTP, one member's status rewritten in the members answers) and dynalite: a member that comes
 * back the same needs no snapshot read; a poll that stopped before its closing write leaves marks
 * that name states it replaced, and the next poll must not trust them.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ClubConfig } from '../../../lambdas/clubs/club-config';
import { GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
import { pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import { PublishError } from '../../../lambdas/events/event-sink';
import { MemorySink } from '../../../lambdas/events/publisher';
import type { DynamoDbStateStore } from '../../../lambdas/state';
import { clubStateItemBytes } from '../../../lambdas/state/club-state';
import { decodeRowMarks } from '../../../lambdas/state/committed-rows';
import { type BridgeStateStore, decorateStore } from '../../../lambdas/state/state-store';
import type { ClubStateSession, ClubStateStore } from '../../../lambdas/state/store';
import { useEngineRig } from '../../support/engine-rig';

const MINUTE = 60_000;
type Row = { Number?: string; Status?: string };

/** EventBridge down: every publish fails. */
class DownSink extends MemorySink {
  override publish(): Promise<void> {
    return Promise.reject(new PublishError('EventBridge down', { failedEventIds: [], attempts: 1 }));
  }
}

describe('row marks', () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 11,
      clubs: [{ clubId: 'club-1', timeZone: 'Europe/London', members: 60, open24h: true }],
      historyDays: 2,
      startTime: '2026-05-04T08:00:00Z',
      activityScale: 8,
    },
  });
  let club: ClubConfig;
  let base: DynamoDbStateStore;
  /** The member numbers whose snapshots were read, this poll. */
  let reads: string[];
  /** The members answers' rows, this poll. */
  let rows: Row[];
  /** A member whose status the members answers carry rewritten. */
  let forced: { number: string; status: string } | undefined;
  const clients = new GymApiClientFactory({
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    fetch: async (input, init) => {
      const url = new URL(String(input));
      if (!url.pathname.endsWith('/members')) return fetch(input, init);
      // Every member in every tail (the sandbox's members change a few times a day).
      url.searchParams.delete('updatedate');
      const response = await fetch(url, init);
      const envelope = (await response.json()) as { data: Row[] };
      for (const row of envelope.data) if (forced && row.Number === forced.number) row.Status = forced.status;
      rows.push(...envelope.data);
      return Response.json(envelope, { status: response.status });
    },
  });

  beforeEach(async () => {
    club = rig.firstClub();
    base = await rig.newStore('marks');
    forced = undefined;
  });

  const poll = async (store: BridgeStateStore, sink = new MemorySink()) => {
    rig.sandbox.advance(MINUTE);
    reads = [];
    rows = [];
    const counted = decorateStore(store, (method, args, call) => {
      if (method === 'getSnapshots' && args[1] === 'MEMBER') reads.push(...(args[2] as string[]));
      return call();
    });
    await pollClub({ store: counted, sink, clients, owner: 'poller', now: rig.now }, club, {
      deadlineMs: rig.deadline(),
      sources: ['members'],
    });
    return sink.events.filter((e) => e.detailType === 'Member Status Changed').map((e) => e.detail);
  };
  /** The last row of the last answers (the newest of the marks a poll stores). */
  const newest = () => rows.at(-1)!;
  /** A baseline, then the last member forced Frozen and committed (marked): its number. */
  const markedFrozen = async () => {
    await poll(base);
    const number = newest().Number!;
    forced = { number, status: 'Frozen' };
    await poll(base);
    return number;
  };

  it('a member that comes back the same is not read; one that changes is, and its change is published', async () => {
    // Prepare: a baseline, then a tail in which the last member is forced Frozen
    await poll(base);
    const number = newest().Number!;
    forced = { number, status: 'Frozen' };
    const frozen = await poll(base);
    // Act
    const quiet = await poll(base);
    const quietReads = [...reads];
    forced = { number, status: 'PaymentIssue' };
    const changed = await poll(base);
    // Assess
    expect(frozen.map((d) => d.status)).toEqual(['Frozen']);
    expect(rows.some((r) => r.Number === number)).toBe(true);
    expect(quiet).toEqual([]);
    expect(quietReads).not.toContain(number);
    expect(reads).toEqual([number]);
    expect(changed.map((d) => d.status)).toEqual(['PaymentIssue']);
    const cursor = await base.view(club.clubId).getCursor('members');
    expect(decodeRowMarks(cursor.committedRows)?.length).toBeGreaterThan(0);
  }, 60_000);

  it('after a poll that stopped before its closing write, a member changed back is read and published', async () => {
    // Prepare: the newest member committed Frozen (marked), then a poll commits PaymentIssue and
    // stops before its closing write: the stored marks still say Frozen
    const number = await markedFrozen();
    forced = { number, status: 'PaymentIssue' };
    const crashing = decorateStore(base, (_method, _args, call) => call(), {
      openClub: async (...args: Parameters<ClubStateStore['openClub']>) => {
        const session = await base.parts.clubs.openClub(...args);
        if (!session) return session;
        return new Proxy(session, {
          get: (target, key) => {
            if (key === 'close')
              return () => Promise.reject(new Error('the poller stopped before its closing write'));
            const value: unknown = Reflect.get(target, key);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        }) as ClubStateSession;
      },
    });
    const sink = new MemorySink();
    await expect(poll(crashing, sink)).rejects.toThrow('closing write');
    const stopped = sink.events.filter((e) => e.detailType === 'Member Status Changed');
    // Act: the same poller takes the club again (its lease is still there), the member back at Frozen
    forced = { number, status: 'Frozen' };
    const after = await poll(base);
    // Assess
    expect(stopped.map((e) => e.detail.status)).toEqual(['PaymentIssue']);
    expect(reads).toContain(number);
    expect(after.map((d) => d.status)).toEqual(['Frozen']);
  }, 60_000);

  it('after a poll whose scan failed part-way, a member changed back is read and published', async () => {
    // Prepare: the last member committed Frozen (marked); the next poll stores its intent for
    // PaymentIssue, and publishing fails: the source fails, the poll closes
    const number = await markedFrozen();
    forced = { number, status: 'PaymentIssue' };
    await poll(base, new DownSink());
    // Act: the member back at Frozen
    forced = { number, status: 'Frozen' };
    const after = await poll(base);
    // Assess: the marks the failed scan found were not written back; the intent's state and the
    // change back are published
    expect(reads).toContain(number);
    expect(after.map((d) => d.status)).toEqual(['PaymentIssue', 'Frozen']);
  }, 60_000);

  it('keeps the club state item inside one write unit', async () => {
    // Prepare, Act: a baseline of every member marks them all
    await poll(base);
    // Assess
    const state = await base.readClubStates([club.clubId], '2026-05');
    const cursors = [...(state.get(club.clubId)?.cursors ?? [])];
    const bytes = clubStateItemBytes(club.clubId, {
      version: 123,
      leaseOwner: `poll:${'x'.repeat(36)}:${'y'.repeat(36)}:19`,
      leaseExpiresAtMs: 1e12,
      cursors,
      quotaMonth: '2026-05',
      quotaRequests: 123_456,
    });
    expect(bytes).toBeLessThanOrEqual(1024);
    expect(
      decodeRowMarks(cursors.find((c) => c.source === 'members')?.committedRows)?.length,
    ).toBeGreaterThan(20);
  }, 60_000);
});
