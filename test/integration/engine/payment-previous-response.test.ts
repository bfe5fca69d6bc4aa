/**
 * Payment Failed's `previousResponse`: a payment the bridge saw Approved that comes back
 * Dishonoured days later (same Id, new Response) says what it was before; a payment first seen
 * declined says nothing. The earlier Response comes from the time-ordered seen set's window Query
 * (the entry's group and value), with no extra read. Entries written before groups existed (an
 * upgrade) leave it out and break nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClubsFile } from '../../../lambdas/clubs/club-config';
import { GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
import type { BridgeEvent } from '../../../lambdas/events/catalog';
import { MemorySink } from '../../../lambdas/events/publisher';
import { SOURCES } from '../../../lambdas/sources';
import { DynamoDbStateStore, type SeenAt, type SourceName } from '../../../lambdas/state';
import { type BridgeStateStore, decorateStore } from '../../../lambdas/state/state-store';
import { startSandbox } from '../../../sandbox';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';
import { pollSourceInSession } from '../../support/state-seeds';

const HOUR = 3_600_000;

interface PaymentDetail {
  paymentId: string;
  response: string;
  reason?: string;
  previousResponse?: string;
  eventId: string;
}

const failed = (events: readonly BridgeEvent[]) =>
  events.filter((e) => e.detailType === 'Payment Failed').map((e) => e.detail as unknown as PaymentDetail);

/** A store as the bridge wrote it before seen entries had a group and value. */
function withoutGroups(inner: BridgeStateStore): BridgeStateStore {
  return decorateStore(inner, (_method, _args, call) => call(), {
    putSeenAt: (clubId: string, source: SourceName, entries: readonly SeenAt[], expiresAtSec: number) =>
      inner.parts.seen.putSeenAt(
        clubId,
        source,
        entries.map((e) => ({ fingerprint: e.fingerprint, at: e.at })),
        expiresAtSec,
      ),
  });
}

describe('Payment Failed previousResponse', () => {
  let db: Dynalite;
  beforeAll(async () => {
    db = await startDynalite();
  });
  afterAll(async () => {
    await db.close();
  });

  it('is the Approved Response of a payment dishonoured later, and absent for a payment first seen declined', async () => {
    // Prepare: a busy club; payment history polled every 4 hours into a current table and into a
    // table whose seen entries have no groups (written by the previous version).
    const sandbox = await startSandbox({
      seed: 11,
      clubs: 1,
      members: 400,
      historyDays: 2,
      startTime: '2026-05-04T08:00:00Z',
      activityScale: 8,
    });
    try {
      const club = { ...parseClubsFile(sandbox.clubsFile())[0]!, piiPolicy: 'full' as const };
      const ctx = {
        clubId: club.clubId,
        timeZone: club.timeZone,
        unstatedZone: club.unstatedZone,
        piiPolicy: club.piiPolicy,
      };
      const now = () => sandbox.clock.now().getTime();
      const client = new GymApiClientFactory().forClub(club, () => {});
      const current = new DynamoDbStateStore({
        client: db.client,
        tableName: await createTestTable(db.client, 'prev'),
        now,
      });
      const legacy = withoutGroups(
        new DynamoDbStateStore({
          client: db.client,
          tableName: await createTestTable(db.client, 'legacy'),
          now,
        }),
      );
      const sink = new MemorySink();
      const legacySink = new MemorySink();
      const poll = async () => {
        for (const [store, s] of [
          [current, sink],
          [legacy, legacySink],
        ] as const) {
          const report = await pollSourceInSession(
            { store, sink: s, client, now, owner: 'p' },
            ctx,
            SOURCES.paymentHistory,
            {
              deadlineMs: Date.now() + 60_000,
            },
          );
          expect(report.outcome).toBe('completed');
        }
      };
      // Act: a baseline, then polls until a dishonour and a decline have been published.
      await poll();
      const dishonoured = () => failed(sink.events).filter((d) => d.reason === 'dishonoured');
      const declined = () => failed(sink.events).filter((d) => d.reason === 'declined');
      for (let i = 0; i < 60 && (dishonoured().length === 0 || declined().length === 0); i++) {
        sandbox.advance(4 * HOUR);
        await poll();
      }
      // Assess
      expect(dishonoured().length).toBeGreaterThan(0);
      expect(declined().length).toBeGreaterThan(0);
      for (const d of dishonoured()) expect(d.previousResponse, d.paymentId).toBe('Approved');
      for (const d of declined()) expect(d.previousResponse, d.paymentId).toBeUndefined();
      // The Approved line of each dishonoured payment was seen first (baseline or an earlier poll).
      const approvedIds = new Set(
        sink.events
          .filter((e) => e.detailType === 'Payment Succeeded')
          .map((e) => (e.detail as unknown as PaymentDetail).paymentId),
      );
      expect(dishonoured().some((d) => approvedIds.has(d.paymentId))).toBe(true);
      // Upgrade: without stored groups the same events are published, without previousResponse.
      const legacyFailed = new Map(failed(legacySink.events).map((d) => [d.eventId, d]));
      for (const d of dishonoured()) {
        const old = legacyFailed.get(d.eventId);
        expect(old, d.paymentId).toBeDefined();
        expect(old!.previousResponse).toBeUndefined();
      }
    } finally {
      await sandbox.close();
    }
  });
});
