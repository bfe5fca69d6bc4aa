import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../../sandbox';

describe('sandbox clock', () => {
  it('advance() moves the clock by exactly the span and refuses going back', async () => {
    const sandbox = await startSandbox({
      seed: 1,
      clubs: 1,
      members: 20,
      historyDays: 1,
      startTime: '2025-03-10T00:00:00Z',
    });
    try {
      sandbox.advance(90_000);
      expect(sandbox.clock.now().toISOString()).toBe('2025-03-10T00:01:30.000Z');
      expect(() => sandbox.advance(-1)).toThrow(RangeError);
    } finally {
      await sandbox.close();
    }
  });

  it('startLive moves the clock with wall time times speed, and generates activity, until stopLive', async () => {
    const sandbox = await startSandbox({
      seed: 1,
      clubs: 1,
      members: 200,
      historyDays: 1,
      startTime: '2025-03-10T00:00:00Z',
    });
    try {
      const start = sandbox.clock.now().getTime();
      const wallStart = Date.now();
      sandbox.startLive({ speed: 3600, tickMs: 20 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      sandbox.stopLive();
      const wall = Date.now() - wallStart;
      const moved = sandbox.clock.now().getTime() - start;
      expect(moved).toBeGreaterThan(200 * 3600 * 0.5);
      expect(moved).toBeLessThanOrEqual(wall * 3600);
      expect(sandbox.journal.lastSeq).toBeGreaterThan(0);
      const stopped = sandbox.clock.now().getTime();
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(sandbox.clock.now().getTime()).toBe(stopped);
    } finally {
      await sandbox.close();
    }
  });
});
