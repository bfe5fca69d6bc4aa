/**
 * The health cache with several callers at once (a fan-out fans out its receives side by side):
 * an endpoint forgotten by one caller while another's read is in flight is not lost to that read,
 * and a health written meanwhile (a newer rev) is not put back by an older read.
 */
import { describe, expect, it } from 'vitest';
import { HealthCache } from '../../../lambdas/delivery/endpoint-cache';
import { EMPTY_HEALTH, type EndpointHealth } from '../../../lambdas/delivery/webhook-store';

/** A store whose reads wait until released. */
function slowStore(stored: Map<string, EndpointHealth>) {
  const waiting: (() => void)[] = [];
  return {
    waiting,
    store: {
      getHealth: async (ids: readonly string[]) => {
        await new Promise<void>((resolve) => waiting.push(resolve));
        return new Map(ids.map((id) => [id, stored.get(id) ?? EMPTY_HEALTH]));
      },
    },
  };
}

describe('the health cache, callers at once', () => {
  it('answers for an endpoint forgotten while its read was in flight', async () => {
    // Prepare: a's health cached, b's not; the read of b held.
    const s = slowStore(new Map([['b', { failures: 0, rev: 3 }]]));
    const cache = new HealthCache({ store: s.store, ttlMs: 60_000 });
    cache.set('a', { failures: 0, rev: 7 });
    // Act: one caller reads a and b; meanwhile another forgets a.
    const reading = cache.get(['a', 'b']);
    await Promise.resolve();
    cache.forget('a');
    s.waiting.shift()!();
    // Assess
    const got = await reading;
    expect(got.get('a')).toEqual({ failures: 0, rev: 7 });
    expect(got.get('b')).toEqual({ failures: 0, rev: 3 });
  });

  it('keeps a health written while an older read was in flight', async () => {
    const s = slowStore(new Map([['a', { failures: 0, rev: 1 }]]));
    const cache = new HealthCache({ store: s.store, ttlMs: 60_000 });
    const reading = cache.get(['a']);
    await Promise.resolve();
    cache.set('a', { failures: 1, rev: 2 });
    s.waiting.shift()!();
    expect((await reading).get('a')).toEqual({ failures: 1, rev: 2 });
    expect((await cache.get(['a'])).get('a')).toEqual({ failures: 1, rev: 2 });
  });
});
