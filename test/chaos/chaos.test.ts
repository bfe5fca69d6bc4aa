/**
 * The short chaos profile (part of `npm test`): a dozen seeded runs of the whole engine under
 * injected faults, each compared with the sandbox's ground-truth journal (harness.ts). Zero missing,
 * zero spurious, re-deliveries only where a crash between publish and commit explains them.
 *
 *   CHAOS_SEED=123 npx vitest run test/chaos/chaos.test.ts     # replay one seed
 *   CHAOS_RUNS=40 CHAOS_FROM=500 npx vitest run test/chaos/chaos.test.ts
 *
 * The long profile (1,000 runs, docs/reliability.md) is `npm run test:chaos`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventSink } from '../../lambdas/events/event-sink';
import { type Dynalite, startDynalite } from '../support/dynalite';
import { type ChaosRunResult, runChaos } from './harness';

function envInt(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new Error(`${name} must be a non-negative integer, got '${text}'`);
  return n;
}

const replaySeed = process.env.CHAOS_SEED ? envInt('CHAOS_SEED', 0) : undefined;
const runs = envInt('CHAOS_RUNS', 12);
const from = envInt('CHAOS_FROM', 1);
const seeds = replaySeed === undefined ? Array.from({ length: runs }, (_, i) => from + i) : [replaySeed];

describe('chaos: the engine under injected faults against the journal', () => {
  let db: Dynalite;
  const results: ChaosRunResult[] = [];
  beforeAll(async () => {
    db = await startDynalite();
  });
  afterAll(async () => {
    await db.close();
  });

  it.each(seeds)(
    'seed %i: nothing missing, nothing made up, duplicates only after a crash',
    async (seed) => {
      const result = await runChaos(seed, { dynamoEndpoint: db.endpoint });
      results.push(result);
      expect(
        result.failures,
        `replay with CHAOS_SEED=${seed} npx vitest run test/chaos/chaos.test.ts`,
      ).toEqual([]);
      expect(result.check.missing).toEqual([]);
      expect(result.check.spurious).toEqual([]);
      expect(result.lifecycle.missing).toEqual([]);
      expect(result.lifecycle.spurious).toEqual([]);
      expect(result.operational.missing).toEqual([]);
      expect(result.operational.spurious).toEqual([]);
    },
    120_000,
  );

  it.skipIf(replaySeed !== undefined)('injects faults of every layer across the profile', () => {
    const injected = new Map<string, number>();
    for (const r of results)
      for (const [k, n] of Object.entries(r.injected)) injected.set(k, (injected.get(k) ?? 0) + n);
    const kinds = [...injected].filter(([, n]) => n > 0).map(([k]) => k);
    // The API, EventBridge, DynamoDB and crash layers each saw faults, and events were checked.
    expect(kinds).toEqual(
      expect.arrayContaining(['api-5xx', 'eventbridge-failed-entry', 'dynamodb-throttle']),
    );
    expect(kinds.some((k) => k.startsWith('crash:'))).toBe(true);
    expect(results.reduce((n, r) => n + r.check.checked, 0)).toBeGreaterThan(100);
    // Lifecycle facts came due and were checked against the journal's.
    expect(results.reduce((n, r) => n + r.lifecycle.required, 0)).toBeGreaterThan(10);
  });

  it('fails a run whose events are not all delivered (the verdict is not vacuous)', async () => {
    // A sink that silently drops the first visit it is given, and that same event every time it is
    // published again (a crash and retry must not deliver it behind the check's back); and so the
    // first operational event.
    let droppedId: string | undefined;
    let droppedOperational: string | undefined;
    const lossy = (inner: EventSink): EventSink => ({
      publish: (events) => {
        // A real visit (not a poison record's: those are accounted for apart from the journal).
        droppedId ??= events.find(
          (e) => e.detailType === 'Member Visit Recorded' && !JSON.stringify(e.detail).includes('~poison-'),
        )?.detail.eventId;
        droppedOperational ??= events.find((e) => e.detail.source === 'bridge')?.detail.eventId;
        const lost = new Set([droppedId, droppedOperational]);
        return inner.publish(events.filter((e) => !lost.has(e.detail.eventId)));
      },
    });
    // Seed 10 whatever CHAOS_SEED says: its scenario polls visits and meets operational events (some
    // seeds' scenarios publish no visit, which would prove nothing here; the expects below say so),
    // and it is among the profile's cheapest (a small club, about a third of seed 1's CPU).
    const result = await runChaos(10, { dynamoEndpoint: db.endpoint }, { wrapSink: lossy });
    expect(droppedId).toBeDefined();
    expect(result.ok).toBe(false);
    expect(result.check.missing.filter((k) => k.startsWith('V|'))).toHaveLength(1);
    expect(droppedOperational).toBeDefined();
    expect(result.operational.missing.length).toBeGreaterThan(0);
  }, 120_000);
});
