/**
 * The bench's measures of a club poll's CloudWatch Logs bytes (bench/emf-capture.ts,
 * bench/log-capture.ts): the runtime's own EMF and log code, and each poll's share of what its
 * invocation writes once for its whole batch.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EmfCapture } from '../../../bench/emf-capture';
import { LogCapture } from '../../../bench/log-capture';
import { type ClubPollMetricsInput, createMetrics, PollBatchMetrics } from '../../../lambdas/common/metrics';
import type { ClubReport } from '../../../lambdas/engine/club-poll/poll-club';

const NOW = Date.parse('2026-03-02T12:00:00.000Z');

const report = {
  clubId: 'typical-club',
  outcome: 'ok',
  sources: [
    {
      source: 'visits',
      outcome: 'completed',
      mode: 'tail',
      pages: 1,
      records: 52,
      events: 1,
      quarantined: 0,
      watermark: '2026-03-02T11:59:00.000Z',
    },
  ],
  failures: [],
  requests: 1,
  tokenRequests: 0,
  quotaUsed: 123_456,
  operationalEvents: [],
} as unknown as ClubReport;

const metricsInput: ClubPollMetricsInput = { report, plan: 'basic', durationMs: 1234.5, rateLimited: 0 };
const pollFigures = {
  messageId: 'c0b8b5e2-8d1f-4c5c-9d3a-1c2b3d4e5f60',
  nowMs: NOW,
  durationMs: 1234.5,
  rateLimited: 0,
  plan: 'basic',
} as const;

describe('the EMF and log bytes of a club poll', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("counts each poll its share of the invocation's one EMF document for a batch of the deployed size", () => {
    // Prepare: the document the poll handler writes for 10 such polls, measured on its own.
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const batch = new PollBatchMetrics();
    for (let i = 0; i < 10; i++) batch.addPoll(metricsInput);
    batch.publish(createMetrics({ serviceName: 'gym-bridge' }));
    const documentBytes = written.join('').length;
    const alone = new EmfCapture(1);
    const inBatches = new EmfCapture(10);
    // Act
    alone.poll(metricsInput);
    inBatches.poll(metricsInput);
    inBatches.poll(metricsInput);
    // Assess
    expect(documentBytes).toBeGreaterThan(600);
    expect(inBatches.bytes).toBeCloseTo((2 * documentBytes) / 10, 6);
    expect(inBatches.documents).toBeCloseTo(0.2, 9);
    // The document's directive (every metric's name and unit) is paid once a batch, not once a poll.
    expect(inBatches.bytes / 2).toBeLessThan(alone.bytes / 4);
    expect(inBatches.perClubMetrics('typical-club')).toBe(0);
  });

  it("counts each poll's `club polled` line whole and its share of the invocation's context line", () => {
    // Prepare
    const alone = new LogCapture(1);
    const inBatches = new LogCapture(10);
    const many = new LogCapture(1_000_000);
    // Act
    alone.poll(report, pollFigures);
    inBatches.poll(report, pollFigures);
    many.poll(report, pollFigures);
    // Assess: the club line alone (the context line's share all but vanishes in a huge batch)
    // carries the request id but not the rest of the Lambda context; the context line does.
    const clubLine = many.bytes;
    const contextLine = alone.bytes - clubLine;
    expect(clubLine).toBeGreaterThan(300);
    expect(clubLine).toBeLessThan(420);
    expect(contextLine).toBeGreaterThan(400); // the function's ARN and name, the trace id, ...
    expect(inBatches.bytes).toBeCloseTo(clubLine + contextLine / 10, 0);
    expect(inBatches.lines).toBeCloseTo(1.1, 9);
  });
});
