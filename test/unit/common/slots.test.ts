/** The runtime's one semaphore (lambdas/common/slots.ts): the page and large-body gates and the heavy polls use it. */
import { describe, expect, it } from 'vitest';
import { type Release, Slots } from '../../../lambdas/common/slots';

describe('slots', () => {
  it('give a free slot at once, make the next wait for a release, and answer timeout when the wait is up', async () => {
    // Prepare
    const slots = new Slots(1);
    const first = (await slots.acquire()) as Release;
    let secondGot = false;
    const second = slots.acquire({ waitMs: 5_000 }).then((release) => {
      secondGot = true;
      return release as Release;
    });

    // Act: a third gives up at its deadline while the second waits
    const third = await slots.acquire({ waitMs: 20 });
    await Promise.resolve();

    // Assess
    expect(third).toBe('timeout');
    expect(secondGot).toBe(false);
    first();
    first();
    (await second)();
    expect(secondGot).toBe(true);
    expect(slots.free).toBe(1);
  });

  it('answer aborted to a waiter whose signal aborts, or already had, and keep the slot for others', async () => {
    const slots = new Slots(1);
    const held = (await slots.acquire()) as Release;
    const controller = new AbortController();
    const waiting = slots.acquire({ signal: controller.signal });
    controller.abort();
    expect(await waiting).toBe('aborted');
    expect(await slots.acquire({ signal: controller.signal })).toBe('aborted');
    held();
    expect(slots.free).toBe(1);
  });
});
