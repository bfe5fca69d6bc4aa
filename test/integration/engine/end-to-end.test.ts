/**
 * The whole engine against the sandbox (real HTTP), dynalite (real DynamoDB protocol, real SDK) and
 * a local EventBridge endpoint (real SDK PutEvents): after a silent baseline, drive the sandbox's
 * activity, poll repeatedly, and compare the published events with the sandbox's ground-truth
 * journal. Every change produces its event, no event lacks a change, a re-poll emits nothing.
 */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClubConfig, parseClubsFile } from '../../../lambdas/clubs/club-config';
import { GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
import { pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import type { BridgeEvent } from '../../../lambdas/events/catalog';
import { EventBridgeSink, type EventSink, MemorySink } from '../../../lambdas/events/publisher';
import { SOURCE_ORDER } from '../../../lambdas/sources';
import { DynamoDbStateStore } from '../../../lambdas/state';
import { startLocalEventBridge } from '../../../local-aws/local-eventbridge';
import { type Sandbox, startSandbox } from '../../../sandbox';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';
import { actualKeys, compare, expectedKeys } from '../../support/ground-truth';

const MINUTE = 60_000;

interface Harness {
  sandbox: Sandbox;
  clubs: ClubConfig[];
  store: DynamoDbStateStore;
  sink: EventSink;
  events: () => BridgeEvent[];
  pollAll: () => Promise<void>;
}

async function harness(
  db: Dynalite,
  sandbox: Sandbox,
  sink: EventSink,
  events: () => BridgeEvent[],
  overrides: Partial<ClubConfig> = {},
) {
  const store = new DynamoDbStateStore({
    client: db.client,
    tableName: await createTestTable(db.client, 'e2e'),
  });
  const clubs = parseClubsFile(sandbox.clubsFile()).map((c) => ({
    ...c,
    piiPolicy: 'full' as const,
    // Every source, the experimental classAttendance too (opt-in: not in the default sources).
    sources: [...SOURCE_ORDER],
    ...overrides,
  }));
  const clients = new GymApiClientFactory();
  const now = () => sandbox.clock.now().getTime();
  const pollAll = async () => {
    const reports = await Promise.all(
      clubs.map((club) =>
        pollClub({ store, sink, clients, owner: 'e2e', now }, club, { deadlineMs: Date.now() + 60_000 }),
      ),
    );
    for (const r of reports) expect(r.failures, `${r.clubId} failures`).toEqual([]);
  };
  return { sandbox, clubs, store, sink, events, pollAll } satisfies Harness;
}

/** Baseline, then `rounds` of (advance the sandbox, poll); returns the journal boundaries. */
async function drive(h: Harness, rounds: number, stepMs: number) {
  await h.pollAll();
  const baselineSeq = h.sandbox.journal.lastSeq;
  const baselineEvents = h.events().length;
  const boundaries: number[] = [];
  for (let i = 0; i < rounds; i++) {
    h.sandbox.advance(stepMs);
    boundaries.push(h.sandbox.journal.lastSeq);
    await h.pollAll();
  }
  return { baselineSeq, baselineEvents, boundaries };
}

describe('engine end to end against the sandbox ground truth', () => {
  let db: Dynalite;
  beforeAll(async () => {
    db = await startDynalite();
  });
  afterAll(async () => {
    await db.close();
  });

  it('publishes exactly the journal’s changes through EventBridge, across clubs and time zones', async () => {
    // Prepare
    const sandbox = await startSandbox({
      seed: 42,
      clubs: 3,
      members: 120,
      historyDays: 3,
      startTime: '2026-03-02T09:00:00Z',
      activityScale: 6,
    });
    const bus = await startLocalEventBridge({ port: 0 });
    const client = new EventBridgeClient({
      endpoint: bus.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    const sink = new EventBridgeSink({ client, busName: 'gym-bridge-test', baseDelayMs: 1 });
    const received = () =>
      bus.events.map((e) => ({ detailType: e.detailType, detail: e.detail }) as BridgeEvent);
    try {
      const h = await harness(db, sandbox, sink, received);

      // Act: 36 polls, 40 simulated minutes apart (a day: a direct-debit run, sweeps, status changes)
      const { baselineSeq, baselineEvents, boundaries } = await drive(h, 36, 40 * MINUTE);

      // Assess
      expect(baselineEvents).toBe(0);
      const entries = sandbox.journal.entries(baselineSeq);
      const result = compare(expectedKeys(entries, boundaries), actualKeys(received()));
      expect(result.expected).toBeGreaterThan(300);
      expect(result.missing).toEqual([]);
      expect(result.spurious).toEqual([]);
      const kinds = new Set(received().map((e) => e.detailType));
      for (const kind of [
        'Member Visit Recorded',
        'Payment Succeeded',
        'Payment Failed',
        'POS Transaction Recorded',
        'Prospect Created',
        'Prospect Status Changed',
        'Member Status Changed',
      ]) {
        expect(kinds).toContain(kind);
      }
      // Every event arrived once (EventBridge sink retries only failed entries).
      const ids = received().map((e) => e.detail.eventId);
      expect(new Set(ids).size).toBe(ids.length);

      // A re-poll with no activity emits nothing new.
      const before = received().length;
      await h.pollAll();
      expect(received().length).toBe(before);
    } finally {
      client.destroy();
      await bus.close();
      await sandbox.close();
    }
    // 19 s in CI on 2 cores beside the other files; 30 s when the machine is busier still.
  }, 90_000);

  it('reads the unstated zone either way (sandbox writes UTC, club reads local, and the reverse)', async () => {
    for (const [ambiguousZone, unstatedZone] of [
      ['utc', 'local'],
      ['local', 'utc'],
    ] as const) {
      const sandbox = await startSandbox({
        seed: 7,
        clubs: 2,
        members: 150,
        historyDays: 2,
        startTime: '2026-06-10T12:00:00Z',
        activityScale: 6,
        ambiguousZone,
      });
      try {
        const sink = new MemorySink();
        const h = await harness(db, sandbox, sink, () => [...sink.events], { unstatedZone });
        expect(h.clubs.every((c) => c.unstatedZone === unstatedZone)).toBe(true);
        const { baselineSeq, boundaries } = await drive(h, 10, 30 * MINUTE);
        const result = compare(
          expectedKeys(sandbox.journal.entries(baselineSeq), boundaries),
          actualKeys(sink.events),
        );
        expect(result.expected).toBeGreaterThan(50);
        expect({ ambiguousZone, missing: result.missing, spurious: result.spurious }).toEqual({
          ambiguousZone,
          missing: [],
          spurious: [],
        });
      } finally {
        await sandbox.close();
      }
    }
  });
});
