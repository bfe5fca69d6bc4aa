import { describe, expect, it } from 'vitest';
import {
  evaluationHourOf,
  evaluationHourStartMs,
  lifecycleSlot,
  REBASE_EVERY_MS,
  rebaseDue,
} from '../../../lambdas/lifecycle/club-lifecycle';

const HOUR = 3_600_000;
const clubs = Array.from({ length: 2_400 }, (_, i) => `club-${i}`);

describe('lifecycleSlot', () => {
  it('spreads a fleet over the minutes of the hour and the 12 rebase hours', () => {
    const minutes = new Array<number>(60).fill(0);
    const rebase = new Array<number>(12).fill(0);
    for (const id of clubs) {
      const slot = lifecycleSlot(id);
      expect(slot.offsetMs % 60_000).toBe(0);
      minutes[slot.offsetMs / 60_000]! += 1;
      rebase[slot.rebaseHour]! += 1;
    }
    // 40 a minute and 200 a rebase hour on average: no minute or hour holds a crowd.
    expect(Math.max(...minutes)).toBeLessThan(70);
    expect(Math.min(...minutes)).toBeGreaterThan(15);
    expect(Math.max(...rebase)).toBeLessThan(260);
    expect(Math.min(...rebase)).toBeGreaterThan(140);
  });

  it('is stable: the same club, the same slot', () => {
    expect(lifecycleSlot('club-42')).toEqual(lifecycleSlot('club-42'));
    expect(evaluationHourOf('club-42', evaluationHourStartMs('club-42', 500_000))).toBe(500_000);
  });
});

describe('rebaseDue', () => {
  const id = 'club-7';
  const { rebaseHour } = lifecycleSlot(id);
  const slotHour = 492_000 - (492_000 % 12) + rebaseHour;
  const at = (hour: number) => evaluationHourStartMs(id, hour) + 5_000;

  it('rebases in the club slot hour when the base is older than the hour', () => {
    expect(rebaseDue(id, slotHour, at(slotHour - 3), at(slotHour))).toBe(true);
    expect(rebaseDue(id, slotHour, at(slotHour) - 10_000, at(slotHour))).toBe(true);
    expect(rebaseDue(id, slotHour, at(slotHour) - 1_000, at(slotHour) + 60_000)).toBe(false);
    // A few seconds short of 12 hours: the slot hour still rebases (polls drift within the minute).
    expect(rebaseDue(id, slotHour + 12, at(slotHour) + 30_000, at(slotHour + 12))).toBe(true);
  });

  it('never outside the slot before a whole period, always after one', () => {
    expect(rebaseDue(id, slotHour + 1, at(slotHour - 10), at(slotHour + 1))).toBe(false);
    expect(rebaseDue(id, slotHour + 11, at(slotHour), at(slotHour + 11))).toBe(false);
    const base = at(slotHour + 1);
    expect(rebaseDue(id, slotHour + 13, base, base + REBASE_EVERY_MS)).toBe(true);
  });

  it('a fleet that starts together rebases spread over 12 hours after its first period', () => {
    const start = Date.parse('2026-03-02T00:00:30Z');
    const perHour = new Map<number, number>();
    for (const club of clubs.slice(0, 600)) {
      let base = start;
      for (let ms = start + HOUR; ms < start + 60 * HOUR; ms += HOUR) {
        const hour = evaluationHourOf(club, ms);
        if (!rebaseDue(club, hour, base, ms)) continue;
        base = ms;
        if (ms >= start + 24 * HOUR && ms < start + 48 * HOUR)
          perHour.set(hour % 12, (perHour.get(hour % 12) ?? 0) + 1);
      }
    }
    // Second day: each club rebases twice (600 x 2 = 1,200 over 12 hours: 100 an hour on average).
    expect([...perHour.values()].reduce((a, b) => a + b, 0)).toBe(1_200);
    expect(Math.max(...perHour.values())).toBeLessThan(150);
  });
});
