import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../../lambdas/engine/scan/fingerprint';
import { READ_MARK_TTL_MS, readMarkExpiresAt, readMarkKey } from '../../../../lambdas/engine/scan/read-marks';

const scan = { startedAt: '2026-03-10T12:00:00.000Z', mode: 'tail' } as const;

describe('read marks', () => {
  it.each([
    { other: { ...scan }, id: 'r1', same: true },
    { other: { ...scan }, id: 'r2', same: false },
    { other: { ...scan, startedAt: '2026-03-10T12:05:00.000Z' }, id: 'r1', same: false },
    { other: { ...scan, mode: 'sweep' as const }, id: 'r1', same: false },
  ])('the mark of $id in $other.mode started $other.startedAt is the same: $same', ({ other, id, same }) => {
    // Act
    const a = readMarkKey(scan, 'r1');
    const b = readMarkKey(other, id);
    // Assess
    expect(a === b).toBe(same);
  });

  it('is the stored key format: the hash of READ|start|mode|identity', () => {
    expect(readMarkKey(scan, 'r1')).toBe(fingerprint('READ|2026-03-10T12:00:00.000Z|tail|r1'));
  });

  it('expires three days after the poll started, in whole seconds', () => {
    expect(READ_MARK_TTL_MS).toBe(3 * 86_400_000);
    expect(readMarkExpiresAt(1_000_500)).toBe(Math.ceil((1_000_500 + READ_MARK_TTL_MS) / 1000));
  });
});
