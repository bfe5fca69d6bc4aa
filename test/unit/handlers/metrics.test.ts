/** The EMF documents written for a batch of club polls and for the dispatcher's freshness view. */

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { METRIC, METRICS_NAMESPACE } from '../../../lambdas/common/deployment-contract';
import {
  type ClubPollMetricsInput,
  createMetrics,
  EMF_MAX_VALUES,
  PollBatchMetrics,
  publishDispatchMetrics,
  watermarkLagSeconds,
} from '../../../lambdas/common/metrics';
import { emfDocuments } from '../../support/emf';

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

/** A poll of two sources (640 records, 8 events) with one operational event, a 401 and a failed lifecycle evaluation. */
const failedPoll: ClubPollMetricsInput = {
  report: {
    sources: [
      { records: 600, events: 3 },
      { records: 40, events: 5 },
    ],
    failures: [{ kind: 'auth' }],
    requests: 4,
    quotaUsed: 250_000,
    operationalEvents: [{}],
    lifecycle: { outcome: 'failed' },
  },
  plan: 'basic',
  durationMs: 1234.4,
  rateLimited: 2,
};

/** A quiet poll of one source on the Advanced plan. */
const quietPoll: ClubPollMetricsInput = {
  report: {
    sources: [{ records: 12, events: 0 }],
    failures: [],
    requests: 1,
    quotaUsed: 500_000,
    operationalEvents: [],
  },
  plan: 'advanced',
  durationMs: 310,
  rateLimited: 0,
};

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
  const documents = (): Emf[] => emfDocuments<Emf>(lines);

  it('writes ONE service-wide document for a batch of polls: counts summed, a duration and a quota share per poll', () => {
    // Prepare
    const metrics = createMetrics({ serviceName: 'gym-bridge-test' });
    const batch = new PollBatchMetrics();
    // Act: three polls of one invocation, one of which could not run at all.
    batch.addPoll(failedPoll);
    batch.addPoll(quietPoll);
    batch.addFailure(55.6);
    batch.publish(metrics);
    // Assess
    const [doc, ...rest] = documents();
    expect(rest).toEqual([]);
    const directive = doc!._aws.CloudWatchMetrics[0]!;
    expect(directive.Namespace).toBe(METRICS_NAMESPACE);
    // Service-wide metrics only (a club dimension would be a billed metric per club), and no club
    // property: a club's figures are on its `club polled` log line.
    expect(directive.Dimensions).toEqual([['service']]);
    expect(doc).not.toHaveProperty('ClubId');
    expect(doc!.service).toBe('gym-bridge-test');
    // The counts the alarms and the dashboard read as a Sum: the batch's total.
    expect(doc![METRIC.recordsFetched]).toBe(652);
    expect(doc![METRIC.eventsPublished]).toBe(9);
    expect(doc![METRIC.apiRequests]).toBe(5);
    expect(doc![METRIC.rateLimited]).toBe(2);
    expect(doc![METRIC.pollErrors]).toBe(2);
    expect(doc![METRIC.credentialsRejected]).toBe(1);
    expect(doc![METRIC.lifecycleFailures]).toBe(1);
    // A value per poll: the dashboard's percentiles and the quota alarm's maximum read every poll.
    expect(doc![METRIC.pollDuration]).toEqual([1234, 310, 56]);
    expect(doc![METRIC.quotaUsedShare]).toEqual([0.25, 0.1]);
    const units = Object.fromEntries(directive.Metrics.map((m) => [m.Name, m.Unit]));
    expect(units).toEqual({
      [METRIC.recordsFetched]: 'Count',
      [METRIC.eventsPublished]: 'Count',
      [METRIC.apiRequests]: 'Count',
      [METRIC.rateLimited]: 'Count',
      [METRIC.pollErrors]: 'Count',
      [METRIC.credentialsRejected]: 'Count',
      [METRIC.lifecycleFailures]: 'Count',
      [METRIC.pollDuration]: 'Milliseconds',
      [METRIC.quotaUsedShare]: 'None',
    });
    // Freshness is fleet-wide (the dispatcher's), never a per-club metric.
    expect(doc).not.toHaveProperty(METRIC.sourcesOverdue);
    expect(batch.polls).toBe(0);
  });

  it('writes zero counts (the alarms see data), nothing for an empty batch, and starts over after each publish', () => {
    // Prepare
    const metrics = createMetrics({ serviceName: 'svc' });
    const batch = new PollBatchMetrics();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    // Act
    batch.publish(metrics);
    batch.addPoll(quietPoll);
    batch.publish(metrics);
    batch.publish(metrics);
    // Assess
    const [doc, ...rest] = documents();
    expect(rest).toEqual([]);
    expect(doc![METRIC.pollErrors]).toBe(0);
    expect(doc![METRIC.credentialsRejected]).toBe(0);
    expect(doc![METRIC.pollDuration]).toBe(310);
    expect(warn).not.toHaveBeenCalled();
  });

  it(`keeps to EMF's ${EMF_MAX_VALUES} values a metric: a larger batch takes more documents, every value once`, () => {
    // Prepare
    const metrics = createMetrics({ serviceName: 'svc' });
    const batch = new PollBatchMetrics();
    const polls = EMF_MAX_VALUES + 30;
    // Act
    for (let i = 0; i < polls; i++) batch.addPoll({ ...quietPoll, durationMs: i });
    batch.publish(metrics);
    // Assess
    const docs = documents();
    expect(docs.length).toBeGreaterThan(1);
    const values = (name: string) => docs.flatMap((d) => (d[name] === undefined ? [] : [d[name]].flat()));
    for (const d of docs) {
      expect([d[METRIC.pollDuration]].flat().length).toBeLessThanOrEqual(EMF_MAX_VALUES);
      expect([d[METRIC.quotaUsedShare] ?? []].flat().length).toBeLessThanOrEqual(EMF_MAX_VALUES);
    }
    expect(values(METRIC.pollDuration)).toEqual(Array.from({ length: polls }, (_, i) => i));
    expect(values(METRIC.quotaUsedShare)).toHaveLength(polls);
    expect(values(METRIC.apiRequests)).toEqual([polls]);
    expect(values(METRIC.recordsFetched)).toEqual([12 * polls]);
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
