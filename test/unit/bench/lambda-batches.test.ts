import { describe, expect, it } from 'vitest';
import {
  batchDurations,
  invocationMs,
  POLL_WORK_SAMPLES,
  type PollWork,
  samplePollWork,
} from '../../../bench/lambda-batches';

const L = { gymApiRequest: 400, dynamoRequest: 10, putEventsRequest: 30 };
const poll = (localMs: number, critical = 0, store = 0, put = 0): PollWork => ({
  localMs,
  criticalApiRequests: critical,
  storeRequests: store,
  putEventsRequests: put,
});

describe('poll invocations as long as their slowest club', () => {
  it('a club alone takes its CPU at the share plus its waits', () => {
    expect(invocationMs([poll(10, 3, 5)], 2, L)).toBeCloseTo(10 * 2 + 3 * 400 + 5 * 10, 6);
    expect(invocationMs([poll(10)], 3, L)).toBeCloseTo(30, 6);
  });

  it('CPU is shared: two clubs that only compute take the sum, two that mostly wait take the longest', () => {
    expect(invocationMs([poll(10), poll(20)], 1, L)).toBeCloseTo(30, 6);
    const waiting = invocationMs([poll(1, 2), poll(1, 4)], 1, L);
    expect(waiting).toBeGreaterThanOrEqual(4 * 400 + 1);
    expect(waiting).toBeLessThan(4 * 400 + 2 + 1e-6);
  });

  it('a batch lasts longer than its average club and no longer than all of them in a row', () => {
    // Prepare
    const samples = Array.from({ length: 50 }, (_, i) => poll(5 + (i % 7), i % 5, 4, i % 2));
    // Act
    const d = batchDurations(samples, 10, 6.9, L, 300);
    // Assess
    const alone = samples.map((p) => invocationMs([p], 6.9, L));
    const mean = alone.reduce((a, b) => a + b, 0) / alone.length;
    expect(d.meanMs).toBeGreaterThan(Math.max(...alone) * 0.9);
    expect(d.meanMs).toBeGreaterThan(mean);
    expect(d.meanMs).toBeLessThan(10 * Math.max(...alone));
    expect(d.p95Ms).toBeGreaterThanOrEqual(d.meanMs);
    expect(batchDurations(samples, 10, 6.9, L, 300)).toEqual(d);
  });

  it('keeps a seeded sample of at most POLL_WORK_SAMPLES polls', () => {
    const polls = Array.from({ length: 1000 }, (_, i) => poll(i));
    const sample = samplePollWork(polls);
    expect(sample).toHaveLength(POLL_WORK_SAMPLES);
    expect(new Set(sample.map((p) => p.localMs)).size).toBe(POLL_WORK_SAMPLES);
    expect(samplePollWork(polls)).toEqual(sample);
    expect(samplePollWork(polls.slice(0, 10))).toHaveLength(10);
  });
});
