/**
 * Hostile records in a page the engine accepts, through the whole engine (pollClub against the
 * sandbox, dynalite and a local EventBridge endpoint, all over real sockets; hostile-api-rig.ts).
 * A record whose event would be too big, wrong types, dates off the pattern and ids beyond int64
 * are each quarantined once and the page's other records are published (an int64 beyond 2^53 is
 * carried exactly); a record time, however far in the future, never moves the watermark past the
 * poll's start, and the activity after it is still read.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ClubConfig } from '../../../lambdas/clubs/club-config';
import type { DynamoDbStateStore } from '../../../lambdas/state';
import { MINUTE, useHostileApi, VISITS } from './hostile-api-rig';

const PAYMENTS = '/members/payment/history';

describe('hostile API responses', () => {
  const hostile = useHostileApi();
  const {
    rig,
    poll,
    delivered,
    visitKeys,
    journalVisitKeys,
    watermark,
    baselineThenActivity,
    visit,
    envelope,
  } = hostile;
  // The current test's store and club (the rig makes both afresh before each test).
  let store: DynamoDbStateStore;
  let club: ClubConfig;
  beforeEach(() => {
    ({ store, club } = hostile);
  });

  it('a record whose event would exceed 256 KB is quarantined once; the rest of the page is published', async () => {
    // Prepare: the real page plus one visit with a 300 KB field, served on every poll.
    const before = await baselineThenActivity();
    const real = rig.sandbox.records(club.clubId, 'visits', { fromdate: '2026-05-04T17:00:00' });
    const body = envelope(VISITS, [
      ...real,
      visit('100099', '2026-05-04T18:30:00', { Door: 'x'.repeat(300_000) }),
    ]);
    rig.sandbox.failNext(2, 200, { body, contentType: 'application/json', pathPrefix: VISITS });
    // Act
    const first = await poll(['visits']);
    const second = await poll(['visits']);
    // Assess
    expect(first.failures).toEqual([]);
    expect(first.sources[0]).toMatchObject({ outcome: 'completed', quarantined: 1 });
    expect(second.sources[0]).toMatchObject({ outcome: 'completed', quarantined: 0 });
    const quarantined = await store.parts.quarantine.listQuarantined(club.clubId, 'visits');
    expect(quarantined).toHaveLength(1);
    // Past the record limit (common/bounded-value.ts) before any event is built for it.
    expect(quarantined[0]!.reason).toMatch(/record over 128 KB/);
    expect(visitKeys()).toEqual(journalVisitKeys(before.seq));
  });

  it('wrong types, dates off the pattern and ids beyond int64 are quarantined; int64 beyond 2^53 is carried exactly', async () => {
    // Prepare: one page of payments mixing good and bad records (ids as bare JSON integers).
    await poll(['paymentHistory']);
    const template = rig.sandbox.records(club.clubId, 'paymentHistory').at(-1)!;
    const payment = (id: string, extra: Record<string, unknown>) => ({
      ...template,
      Id: `__${id}__`,
      PaymentDate: '2026-05-04T18:00:00',
      ...extra,
    });
    const records = [
      payment('9223372036854775807', {}), // int64 max: far beyond 2^53
      payment('9007199254740993', { Response: 'Mystery Code 42' }), // 2^53 + 1, an unknown response
      payment('9007199254740995', { PaymentType: 42 }), // wrong type
      payment('9007199254740997', { PaymentDate: '04/05/2026 18:00' }), // date off the pattern
      payment('123456789012345678901', {}), // not an int64
      payment('9007199254740999', { FeeBreakdown: [{ SubscriptionFee: 'free' }] }), // nested wrong type
    ];
    const body = envelope(PAYMENTS, records).replace(/"__(\d+)__"/g, '$1');
    expect(body).toContain('"Id":9223372036854775807');
    rig.sandbox.failNext(2, 200, { body, contentType: 'application/json', pathPrefix: PAYMENTS });
    const watermarkBefore = await watermark('paymentHistory');
    // Act
    const first = await poll(['paymentHistory']);
    const second = await poll(['paymentHistory']);
    // Assess: the good records are published with their ids exact, the bad ones quarantined once.
    expect(first.failures).toEqual([]);
    expect(first.sources[0]).toMatchObject({ outcome: 'completed', quarantined: 4 });
    expect(second.sources[0]).toMatchObject({ quarantined: 0 });
    const payments = delivered().filter((e) => e.detailType.startsWith('Payment'));
    const byId = new Map(payments.map((e) => [(e.detail as { paymentId: string }).paymentId, e]));
    expect([...byId.keys()].sort()).toEqual(['9007199254740993', '9223372036854775807']);
    expect(byId.get('9007199254740993')).toMatchObject({
      detailType: 'Payment Failed',
      detail: { reason: 'unknown-response', response: 'Mystery Code 42' },
    });
    const reasons = (await store.parts.quarantine.listQuarantined(club.clubId, 'paymentHistory'))
      .map((q) => q.reason)
      .join('\n');
    for (const field of ['PaymentType', 'PaymentDate', 'Id', 'FeeBreakdown[0].SubscriptionFee'])
      expect(reasons).toContain(field);
    // The watermark is capped at the poll's start: a record time never pushes it further.
    expect(Date.parse((await watermark('paymentHistory'))!)).toBeLessThanOrEqual(
      rig.sandbox.clock.now().getTime(),
    );
    expect(watermarkBefore).toBeDefined();
  });

  it('a record time far in the future does not move the watermark past the poll start', async () => {
    const before = await baselineThenActivity();
    const real = rig.sandbox.records(club.clubId, 'visits', { fromdate: '2026-05-04T17:00:00' });
    const body = envelope(VISITS, [...real, visit('100098', '2099-01-01T00:00:00')]);
    rig.sandbox.failNext(1, 200, { body, contentType: 'application/json', pathPrefix: VISITS });
    const startMs = rig.sandbox.clock.now().getTime();
    await poll(['visits']);
    expect(Date.parse((await watermark('visits'))!)).toBeLessThanOrEqual(startMs);
    // More activity after it is still read.
    const seq = rig.sandbox.journal.lastSeq;
    rig.sandbox.advance(30 * MINUTE);
    await poll(['visits']);
    for (const k of journalVisitKeys(seq)) expect(visitKeys()).toContain(k);
    expect(before.watermark).toBeDefined();
  });
});
