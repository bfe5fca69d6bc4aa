/**
 * When the fan-out makes a delivery's first attempt itself, and what a hand-off or a slow success
 * changes: pure functions of an endpoint's health and the time (lambdas/delivery/delivery-decision.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  attemptsInline,
  healthAfterFailure,
  healthAfterHandOff,
  healthAfterSuccess,
  INLINE_BUDGET_MS,
  QUEUE_ONLY_MS,
  SUCCESS_REFRESH_MS,
} from '../../../lambdas/delivery/delivery-decision';
import { EMPTY_HEALTH, type EndpointHealth } from '../../../lambdas/delivery/webhook-store';

const NOW = Date.parse('2026-03-02T08:00:00.000Z');
const success = (at: number) => ({ at, status: 204, webhookId: 'evt', latencyMs: 120 });
const failure = { at: NOW, error: 'HTTP 500', status: 500, webhookId: 'evt', attempt: 1 };

describe('the first attempt by the fan-out', () => {
  it.each<[string, EndpointHealth, boolean]>([
    ['never attempted', EMPTY_HEALTH, true],
    ['healthy, last success a while ago', { ...EMPTY_HEALTH, lastSuccess: success(NOW - 3_600_000) }, true],
    ['one failure in a row', healthAfterFailure(EMPTY_HEALTH, failure, undefined, () => 0.5), false],
    ['a 429 asked to wait', healthAfterFailure(EMPTY_HEALTH, failure, 60_000, () => 0.5), false],
    ['a probe in flight', { ...EMPTY_HEALTH, failures: 3, probeUntil: NOW + 30_000 }, false],
    ['held to the queue (handed off a minute ago)', healthAfterHandOff(EMPTY_HEALTH, NOW - 60_000), false],
    ['held to the queue until a moment ago', { ...EMPTY_HEALTH, queueOnlyUntil: NOW - 1 }, true],
  ])('%s: %s', (_, health, inline) => {
    expect(attemptsInline(health, NOW)).toBe(inline);
  });

  it('a hand-off holds the endpoint to the queue for QUEUE_ONLY_MS, nothing else changed', () => {
    const before = { ...EMPTY_HEALTH, lastSuccess: success(NOW - 1000), rev: 4 };
    expect(healthAfterHandOff(before, NOW)).toEqual({ ...before, queueOnlyUntil: NOW + QUEUE_ONLY_MS });
  });

  it('a success slower than the inline budget holds it to the queue, written when half the hold is spent', () => {
    const fresh = { ...EMPTY_HEALTH, lastSuccess: success(NOW - 1000), rev: 2 };
    // A prompt success on the happy path: nothing to write.
    expect(healthAfterSuccess(fresh, success(NOW), 150)).toBeUndefined();
    // A slow one: held to the queue.
    expect(healthAfterSuccess(fresh, success(NOW), INLINE_BUDGET_MS + 1)).toMatchObject({
      failures: 0,
      queueOnlyUntil: NOW + QUEUE_ONLY_MS,
    });
    // Held with more than half left: no write; with less: written again.
    const held = { ...fresh, queueOnlyUntil: NOW + QUEUE_ONLY_MS / 2 + 1 };
    expect(healthAfterSuccess(held, success(NOW), 5_000)).toBeUndefined();
    const ending = { ...fresh, queueOnlyUntil: NOW + QUEUE_ONLY_MS / 2 - 1 };
    expect(healthAfterSuccess(ending, success(NOW), 5_000)?.queueOnlyUntil).toBe(NOW + QUEUE_ONLY_MS);
    // A stale last success is refreshed, the hold kept.
    const stale = { ...held, lastSuccess: success(NOW - SUCCESS_REFRESH_MS) };
    expect(healthAfterSuccess(stale, success(NOW), 100)).toMatchObject({
      lastSuccess: { at: NOW },
      queueOnlyUntil: held.queueOnlyUntil,
    });
  });

  it('a failure keeps the hold; a success after failures closes the circuit', () => {
    const held = healthAfterHandOff(EMPTY_HEALTH, NOW);
    const failed = healthAfterFailure(held, failure, undefined, () => 0.5);
    expect(failed).toMatchObject({ failures: 1, queueOnlyUntil: NOW + QUEUE_ONLY_MS });
    const closed = healthAfterSuccess(failed, success(NOW + 10_000), 100);
    expect(closed).toMatchObject({ failures: 0, queueOnlyUntil: NOW + QUEUE_ONLY_MS });
    expect(closed?.retryAt).toBeUndefined();
    expect(closed?.failingSince).toBeUndefined();
  });
});
