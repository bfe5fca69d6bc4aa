/**
 * The StateStore contract's quarantine: records round-tripped newest first per source, the limit
 * honoured, expired records not listed, an oversized raw record kept as a truncated preview.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { BridgeStateStore } from '../../../lambdas/state/state-store';
import type { QuarantinedRecord } from '../../../lambdas/state/store';
import { CLUB, freshStore, type StoreFactory, T0 } from './state-store-contract-support';

export function describeQuarantineContract(makeStore: StoreFactory): void {
  describe('quarantine', () => {
    let store: BridgeStateStore;
    let setNow: (ms: number) => void;

    beforeEach(async () => {
      ({ store, setNow } = await freshStore(makeStore));
    });

    const at = (minute: number) => new Date(T0 + minute * 60_000).toISOString();
    const nowSec = Math.floor(T0 / 1000);

    it('round-trips records, newest first, per source', async () => {
      // Prepare
      const records: QuarantinedRecord[] = [
        {
          key: 'pay-1',
          reason: 'Amount: expected number',
          raw: { Id: 1, Amount: 'x', Nested: [1, null] },
          at: at(1),
        },
        { key: 'pay-2', reason: 'not an object', raw: 'plain text', at: at(3) },
        { key: 'pay-3', reason: 'missing Id', raw: null, at: at(2) },
      ];

      // Act
      await store.parts.quarantine.putQuarantined(CLUB, 'paymentHistory', records, nowSec + 86_400);
      const listed = await store.parts.quarantine.listQuarantined(CLUB, 'paymentHistory');

      // Assess
      expect(listed).toEqual([records[1], records[2], records[0]]);
      expect(await store.parts.quarantine.listQuarantined(CLUB, 'visits')).toEqual([]);
    });

    it('honours the limit and stores more records than one batch call takes', async () => {
      // Prepare
      const records = Array.from({ length: 60 }, (_, i) => ({
        key: `r${i}`,
        reason: 'bad',
        raw: { i },
        at: at(i),
      }));
      await store.parts.quarantine.putQuarantined(CLUB, 'visits', records, nowSec + 86_400);

      // Act
      const newest = await store.parts.quarantine.listQuarantined(CLUB, 'visits', 5);
      const all = await store.parts.quarantine.listQuarantined(CLUB, 'visits', 1_000);

      // Assess
      expect(newest.map((r) => r.key)).toEqual(['r59', 'r58', 'r57', 'r56', 'r55']);
      expect(all).toHaveLength(60);
    });

    it('does not list expired records', async () => {
      // Prepare
      await store.parts.quarantine.putQuarantined(
        CLUB,
        'visits',
        [{ key: 'old', reason: 'r', raw: 1, at: at(0) }],
        nowSec + 60,
      );
      await store.parts.quarantine.putQuarantined(
        CLUB,
        'visits',
        [{ key: 'new', reason: 'r', raw: 2, at: at(1) }],
        nowSec + 600,
      );

      // Act
      setNow((nowSec + 60) * 1000);
      const listed = await store.parts.quarantine.listQuarantined(CLUB, 'visits');

      // Assess
      expect(listed.map((r) => r.key)).toEqual(['new']);
    });

    it('keeps an oversized raw record as a truncated preview instead of failing', async () => {
      // Prepare
      const raw = { blob: 'z'.repeat(200_000) };

      // Act
      await store.parts.quarantine.putQuarantined(
        CLUB,
        'members',
        [{ key: 'm1', reason: 'huge', raw, at: at(0) }],
        nowSec + 600,
      );
      const listed = await store.parts.quarantine.listQuarantined(CLUB, 'members');

      // Assess
      expect(listed).toHaveLength(1);
      const stored = listed[0]?.raw as { truncated: boolean; originalChars: number; preview: string };
      expect(stored).toMatchObject({ truncated: true, originalChars: JSON.stringify(raw).length });
      expect(stored.preview.startsWith('{"blob":"zzz')).toBe(true);
    });
  });
}
