/** The minute's per-second shape: means per second of the minute, the busiest second, at fleet scale. */
import { describe, expect, it } from 'vitest';
import { fleetMinuteShape, minuteShape, type SecondLoad } from '../../../bench/scale/minute-shape';

const second = (polls: number): SecondLoad => ({
  polls,
  readUnits: polls * 10,
  writeUnits: polls * 2,
  putEventsRequests: polls,
});

describe('minuteShape', () => {
  it('averages each second of the minute over the minutes and finds the busiest second', () => {
    // Prepare: two minutes; second 0 carries 4 then 2 polls, second 30 carries 6 once, others 1.
    const seconds = Array.from({ length: 120 }, (_, i) =>
      second(i === 0 ? 4 : i === 60 ? 2 : i === 30 ? 6 : 1),
    );
    // Act
    const shape = minuteShape(seconds);
    // Assess
    expect(shape.polls.bySecondOfMinute[0]).toBe(3);
    expect(shape.polls.bySecondOfMinute[30]).toBe(3.5);
    expect(shape.polls.bySecondOfMinute[1]).toBe(1);
    expect(shape.polls.peakPerSecond).toBe(6);
    const total = 4 + 2 + 6 + 117;
    expect(shape.polls.meanPerSecond).toBeCloseTo(total / 120);
    expect(shape.readUnits.peakToMean).toBeCloseTo(6 / (total / 120));
  });
});

describe('fleetMinuteShape', () => {
  it('counts 50,000 club phases per second: flat within 15%, every club once', () => {
    const shape = fleetMinuteShape(50_000, 1, { readUnits: 10, writeUnits: 2, putEventsRequests: 0.5 });
    expect(shape.pollsBySecond.reduce((a, b) => a + b, 0)).toBe(50_000);
    expect(shape.meanPollsPerSecond).toBeCloseTo(50_000 / 60);
    expect(shape.peakToMean).toBeLessThan(1.15);
    expect(shape.peak.readUnits).toBeCloseTo(shape.peakPollsPerSecond * 10);
    expect(shape.mean.putEventsRequests).toBeCloseTo((50_000 / 60) * 0.5);
  });
});
