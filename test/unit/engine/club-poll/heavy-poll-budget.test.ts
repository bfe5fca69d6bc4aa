/**
 * How many heavy polls a poll process takes side by side, from its memory budget
 * (lambdas/engine/club-poll/heavy-polls.ts, docs/operations.md "The poll function's memory").
 */
import { describe, expect, it } from 'vitest';
import {
  HEAVY_POLL_RSS_MB,
  HEAVY_POLL_SLOTS,
  heavyPollSlotsFor,
  heavyPolls,
  ONE_HEAVY_POLL_RSS_MB,
  PEAK_SPREAD_MB,
  POLL_FUNCTION_MEMORY_MB,
  POLL_PEAK_BUDGET_MB,
} from '../../../../lambdas/engine/club-poll/heavy-polls';

/** The peak the bench's figures predict for `slots` heavy polls at once, with the spread. */
const predictedPeakMb = (slots: number) =>
  ONE_HEAVY_POLL_RSS_MB + (slots - 1) * HEAVY_POLL_RSS_MB + PEAK_SPREAD_MB;

describe('the heavy-poll bound', () => {
  it('keeps a quarter of the 256 MB function free: 192 MB, one heavy poll at a time', () => {
    expect(POLL_FUNCTION_MEMORY_MB).toBe(256);
    expect(POLL_PEAK_BUDGET_MB).toBe(192);
    expect(predictedPeakMb(1)).toBeLessThanOrEqual(POLL_PEAK_BUDGET_MB);
    expect(predictedPeakMb(2)).toBeGreaterThan(POLL_PEAK_BUDGET_MB);
    expect(HEAVY_POLL_SLOTS).toBe(1);
    expect(heavyPolls.slots).toBe(HEAVY_POLL_SLOTS);
  });

  it('is the most heavy polls whose predicted peak, spread included, fits the budget', () => {
    for (const budget of [181, 193, 194, 200, 206, 207, 230, 384, 1536]) {
      const slots = heavyPollSlotsFor(budget);
      expect(predictedPeakMb(slots), `budget ${budget}`).toBeLessThanOrEqual(budget);
      expect(predictedPeakMb(slots + 1), `budget ${budget}`).toBeGreaterThan(budget);
    }
    expect(heavyPollSlotsFor(193)).toBe(1);
    expect(heavyPollSlotsFor(194)).toBe(2);
    expect(heavyPollSlotsFor(207)).toBe(3);
    // The arithmetic at a 512 MB function's budget (the figures themselves are measured at 256 MB).
    expect(heavyPollSlotsFor(384)).toBe(16);
  });

  it('never stops heavy polls: one at a time however small the budget', () => {
    for (const budget of [0, 64, 128, 180]) expect(heavyPollSlotsFor(budget)).toBe(1);
  });
});
