/**
 * The dispatch handler's freshness monitoring in a warm container (./handlers-fixture.ts): the
 * fleet-wide SourcesOverdue count (with the oldest success's age) in its EMF document, and one
 * `source overdue` log line per overdue club/source naming the reason, none for a fresh club.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DynamoDbClubRegistry } from '../../../lambdas/clubs';
import { METRIC } from '../../../lambdas/common/deployment-contract';
import { logger } from '../../../lambdas/common/logger';
import type { DispatchSummary } from '../../../lambdas/handlers/dispatch';
import { type DynamoDbStateStore, newCursor } from '../../../lambdas/state';
import type { LocalSqs } from '../../support/local-sqs';
import { seedCursor } from '../../support/state-seeds';
import {
  type Handler,
  lambdaContext,
  MINUTE,
  PREFIX,
  QUEUE,
  startWarmContainer,
  type WarmContainer,
} from './handlers-fixture';

describe('dispatch and poll handlers', () => {
  let container: WarmContainer;
  let sqs: LocalSqs;
  let registry: DynamoDbClubRegistry;
  let store: DynamoDbStateStore;
  let dispatch: Handler<unknown, DispatchSummary>;
  let stdout: string[];
  let emf: WarmContainer['emf'];
  let advance: WarmContainer['advance'];

  beforeAll(async () => {
    container = await startWarmContainer();
    ({ sqs, registry, store, dispatch, stdout, emf, advance } = container);
  });
  afterAll(() => container.close());

  it('writes the fleet-wide SourcesOverdue count and one log line per overdue club/source, not for a fresh club', async () => {
    // Prepare: only two enabled clubs (the others disabled), onboarded 30 minutes ago; the visits
    // of one last succeeded 25 minutes ago (it keeps failing), the other's 30 seconds ago.
    for (const club of (await registry.listEnabled()).clubs) await registry.disable(club.clubId);
    const record = (clubId: string) => ({
      clubId,
      baseUrl: 'https://api.example.com/v1',
      timeZone: 'Europe/London',
      plan: 'basic' as const,
      enabled: true,
      sources: ['visits' as const],
      secretName: `${PREFIX}${clubId}`,
    });
    await registry.put(record('overdue-club'));
    await registry.put(record('fresh-club'));
    advance(30 * MINUTE);
    const now = Date.now();
    const at = (agoMs: number) => new Date(now - agoMs).toISOString();
    await seedCursor(store, {
      ...newCursor('overdue-club', 'visits'),
      baselineDone: true,
      watermark: at(25 * MINUTE),
      health: {
        consecutiveFailures: 5,
        lastPollAt: at(MINUTE),
        lastSuccessAt: at(25 * MINUTE),
        lastError: { kind: 'unavailable', message: 'connect ECONNREFUSED 127.0.0.1:9', at: at(MINUTE) },
      },
    });
    await seedCursor(store, {
      ...newCursor('fresh-club', 'visits'),
      baselineDone: true,
      watermark: at(30_000),
      health: { consecutiveFailures: 0, lastPollAt: at(30_000), lastSuccessAt: at(30_000) },
    });
    const mark = stdout.length;
    // The logger is silent under vitest (and the middleware resets its level on every warm
    // invocation): watch what the handler asks it to print. Its JSON form: dispatch-due-clubs.test.
    const warn = vi.spyOn(logger, 'warn');
    // Act
    let summary: DispatchSummary;
    let warned: unknown[][];
    try {
      summary = await dispatch({}, lambdaContext('dispatch'));
    } finally {
      warned = [...warn.mock.calls];
      warn.mockRestore();
    }
    const queued = sqs.takeEvent(QUEUE);
    sqs.settle(queued, { batchItemFailures: [] }); // not polled here: leave the queue empty
    // Assess: the metric, service-wide only, counts the one overdue source.
    expect(summary).toMatchObject({ clubs: 2, sourcesOverdue: 1, oldestSuccessAgeSeconds: 25 * 60 });
    const fleet = emf(mark).filter((d) => METRIC.sourcesOverdue in d);
    expect(fleet).toHaveLength(1);
    expect(fleet[0]![METRIC.sourcesOverdue]).toBe(1);
    expect(fleet[0]![METRIC.oldestSuccessAgeSeconds]).toBe(25 * 60);
    expect(fleet[0]!.ClubId).toBeUndefined();
    expect(emf(mark).some((d) => 'WatermarkLagSeconds' in d)).toBe(false);
    // The log line behind it names the club, the source and the reason; none for the fresh club.
    const lines = warned
      .filter(([message]) => message === 'source overdue')
      .map(([, attributes]) => attributes);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      clubId: 'overdue-club',
      source: 'visits',
      sinceSuccessSeconds: 25 * 60,
      cadenceSeconds: 60,
      allowedSeconds: 15 * 60,
      consecutiveFailures: 5,
      lastErrorKind: 'unavailable',
      reason: 'connect ECONNREFUSED 127.0.0.1:9',
    });
  });
});
