/** The EMF documents written for a club poll and for the dispatcher's freshness view. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { METRIC, METRICS_NAMESPACE } from '../../../lambdas/common/deployment-contract';
import {
  createMetrics,
  publishClubPollMetrics,
  publishDispatchMetrics,
  watermarkLagSeconds,
} from '../../../lambdas/common/metrics';
import type { ClubReport } from '../../../lambdas/engine/poll-club';

const NOW = Date.parse('2026-06-10T12:00:00.000Z');

interface Emf {
  _aws: {
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: string }[];
    }[];
  };
  [key: string]: unknown;
}

describe('metrics', () => {
  let lines: string[];
  beforeEach(() => {
    lines = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  const documents = (): Emf[] =>
    lines
      .flatMap((l) => l.split('\n'))
      .filter((l) => l.includes('"_aws"'))
      .map((l) => JSON.parse(l) as Emf);

  it('writes one document per club poll, service-wide with the club as a property, with every poll metric', () => {
    // Prepare
    const metrics = createMetrics({ serviceName: 'gym-bridge-test' });
    const report: ClubReport = {
      clubId: 'club-1',
      outcome: 'failed',
      sources: [
        {
          source: 'members',
          outcome: 'completed',
          pages: 2,
          records: 600,
          events: 3,
          quarantined: 0,
          attempts: 1,
          watermark: '2026-06-10T11:59:00.000Z',
          publishedEvents: [],
        },
        {
          source: 'visits',
          outcome: 'completed',
          pages: 1,
          records: 40,
          events: 5,
          quarantined: 0,
          attempts: 1,
          watermark: '2026-06-10T11:00:00.000Z',
          publishedEvents: [],
        },
      ],
      failures: [{ source: 'paymentHistory', kind: 'auth', message: 'rejected' }],
      requests: 4,
      tokenRequests: 1,
      quotaUsed: 250_000,
      operationalEvents: [{} as never],
    };
    // Act
    publishClubPollMetrics(metrics, {
      report,
      plan: 'basic',
      durationMs: 1234.4,
      rateLimited: 2,
      nowMs: NOW,
    });
    // Assess
    const [doc, ...rest] = documents();
    expect(rest).toEqual([]);
    const directive = doc!._aws.CloudWatchMetrics[0]!;
    expect(directive.Namespace).toBe(METRICS_NAMESPACE);
    // Service-wide metrics only (a club dimension would be a billed metric per club); the club is
    // a property of the line, for Logs Insights.
    expect(directive.Dimensions).toEqual([['service']]);
    expect(doc!.ClubId).toBe('club-1');
    expect(doc!.service).toBe('gym-bridge-test');
    expect(doc![METRIC.recordsFetched]).toBe(640);
    expect(doc![METRIC.eventsPublished]).toBe(9);
    expect(doc![METRIC.apiRequests]).toBe(4);
    expect(doc![METRIC.rateLimited]).toBe(2);
    expect(doc![METRIC.pollErrors]).toBe(1);
    expect(doc![METRIC.pollDuration]).toBe(1234);
    expect(doc![METRIC.credentialsRejected]).toBe(1);
    expect(doc![METRIC.quotaUsedShare]).toBe(0.25);
    const units = Object.fromEntries(directive.Metrics.map((m) => [m.Name, m.Unit]));
    expect(units[METRIC.pollDuration]).toBe('Milliseconds');
    // Freshness is fleet-wide (the dispatcher's), never a per-club metric.
    expect(Object.keys(units)).not.toContain('WatermarkLagSeconds');
    expect(doc).not.toHaveProperty(METRIC.sourcesOverdue);
  });

  it('writes one service-wide document per dispatch run: clubs dispatched, overdue sources, the highest quota share', () => {
    // Prepare
    const metrics = createMetrics({ serviceName: 'svc' });
    // Act
    publishDispatchMetrics(metrics, {
      messages: 7,
      sourcesOverdue: 3,
      oldestSuccessAgeSeconds: 5400,
      quotaUsedShareMax: 0.1,
    });
    publishDispatchMetrics(metrics, { messages: 0, sourcesOverdue: 0 });
    // Assess
    const [dispatch, quiet] = documents();
    expect(dispatch![METRIC.clubsDispatched]).toBe(7);
    expect(dispatch![METRIC.sourcesOverdue]).toBe(3);
    expect(dispatch![METRIC.oldestSuccessAgeSeconds]).toBe(5400);
    expect(dispatch![METRIC.quotaUsedShare]).toBe(0.1);
    const units = Object.fromEntries(
      dispatch!._aws.CloudWatchMetrics[0]!.Metrics.map((m) => [m.Name, m.Unit]),
    );
    expect(units).toEqual({
      [METRIC.clubsDispatched]: 'Count',
      [METRIC.sourcesOverdue]: 'Count',
      [METRIC.oldestSuccessAgeSeconds]: 'Seconds',
      [METRIC.quotaUsedShare]: 'None',
    });
    expect(dispatch!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service']]);
    expect(dispatch!.ClubId).toBeUndefined();
    expect(Object.keys(dispatch!)).not.toContain('WatermarkLagSeconds');
    // Zero is written too, so the alarm has data and recovers.
    expect(quiet![METRIC.sourcesOverdue]).toBe(0);
    expect(quiet).not.toHaveProperty(METRIC.oldestSuccessAgeSeconds);
  });

  it('computes the watermark lag in whole seconds, never negative', () => {
    expect(watermarkLagSeconds('2026-06-10T11:59:59.400Z', NOW)).toBe(1);
    expect(watermarkLagSeconds('2026-06-10T12:05:00.000Z', NOW)).toBe(0);
    expect(watermarkLagSeconds(undefined, NOW)).toBeUndefined();
    expect(watermarkLagSeconds('garbage', NOW)).toBeUndefined();
  });
});
