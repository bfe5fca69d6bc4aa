/** The log of a club poll: one INFO line with its totals (no zeros); a line per source at DEBUG only. */
import { afterEach, describe, expect, it } from 'vitest';
import { logger } from '../../../lambdas/common/logger';
import type { ClubReport } from '../../../lambdas/engine/club-poll/poll-club';
import { batchFields, logReport, type PollFigures } from '../../../lambdas/engine/poll-message/report-log';
import { captureLogs, type LogCapture, logProblems } from '../../support/log-capture';

const NOW = Date.parse('2026-11-24T12:00:00.000Z');
const POLL: PollFigures = { nowMs: NOW, durationMs: 842.6, rateLimited: 0, plan: 'basic' };

const report: ClubReport = {
  clubId: 'club-1',
  outcome: 'failed',
  sources: [
    {
      source: 'visits',
      outcome: 'completed',
      mode: 'tail',
      pages: 1,
      records: 12,
      events: 3,
      quarantined: 0,
      watermark: '2026-11-24T11:59:30.000Z',
    },
    {
      source: 'members',
      outcome: 'partial',
      mode: 'tail',
      pages: 2,
      records: 40,
      events: 1,
      quarantined: 1,
      watermark: '2026-11-24T11:58:00.000Z',
    },
  ],
  failures: [{ source: 'paymentHistory', kind: 'unavailable', message: 'HTTP 503 from the API' }],
  requests: 4,
  tokenRequests: 0,
  operationalEvents: [],
} as unknown as ClubReport;

describe('the log of a club poll', () => {
  let logs: LogCapture | undefined;
  afterEach(() => logs?.stop());

  it('writes one INFO summary with the totals; the per-source lines are DEBUG; a failure keeps its reason', () => {
    // Prepare
    logs = captureLogs();
    // Act
    logReport(logger.createChild({ persistentKeys: { clubId: 'club-1' } }), report, POLL);
    // Assess
    const byLevel = (level: string) => logs!.lines.filter((l) => l.level === level);
    expect(byLevel('INFO')).toHaveLength(1);
    expect(byLevel('INFO')[0]).toMatchObject({
      message: 'club polled',
      clubId: 'club-1',
      outcome: 'failed',
      sources: 2,
      pages: 3,
      records: 52,
      events: 4,
      quarantined: 1,
      requests: 4,
      durationMs: 843,
      failedSources: 1,
      watermarkLagSecondsMax: 120,
      sourcesIncomplete: 'members:partial',
    });
    // Zero is left out: no token request, no 429, and no quota counted in this poll.
    for (const key of ['tokenRequests', 'rateLimited', 'quotaUsedShare']) {
      expect(byLevel('INFO')[0]).not.toHaveProperty(key);
    }
    expect(byLevel('DEBUG').map((l) => [l.message, l.source])).toEqual([
      ['source polled', 'visits'],
      ['source polled', 'members'],
    ]);
    expect(byLevel('WARN')[0]).toMatchObject({ message: 'source failed', error: 'HTTP 503 from the API' });
    expect(logProblems(logs.lines)).toEqual([]);
    expect(byLevel('INFO')[0]).not.toHaveProperty('lifecycle');
  });

  it("adds the hour's lifecycle evaluation to the summary: its events and reads, or why it waits", () => {
    // Prepare
    logs = captureLogs();
    const child = logger.createChild({ persistentKeys: { clubId: 'club-1' } });
    // Act
    logReport(
      child,
      { ...report, lifecycle: { outcome: 'evaluated', published: 3, ms: 41.6, read: 'noted' } },
      POLL,
    );
    logReport(
      child,
      { ...report, lifecycle: { outcome: 'waiting', reason: 'waiting for the first poll of visits' } },
      POLL,
    );
    // Assess
    const [evaluated, waiting] = logs.lines.filter((l) => l.level === 'INFO');
    expect(evaluated).toMatchObject({
      lifecycle: 'evaluated',
      lifecycleEvents: 3,
      lifecycleRead: 'noted',
      lifecycleMs: 42,
    });
    expect(waiting).toMatchObject({
      lifecycle: 'waiting',
      lifecycleWaiting: 'waiting for the first poll of visits',
    });
  });

  it('leaves out of a quiet poll what is zero or default; keeps the figures the saved queries read', () => {
    // Prepare: one source, nothing new, the outcome `ok`; the quota was counted.
    logs = captureLogs();
    const quiet = {
      ...report,
      outcome: 'ok',
      sources: [{ ...report.sources[0]!, records: 0, events: 0, quarantined: 0 }],
      failures: [],
      requests: 1,
      quotaUsed: 123_456,
    } as ClubReport;
    // Act
    logReport(logger.createChild({ persistentKeys: { clubId: 'club-1' } }), quiet, {
      ...POLL,
      rateLimited: 2,
    });
    // Assess: exactly these fields besides Powertools' own.
    const [line] = logs.lines.filter((l) => l.level === 'INFO');
    const { level, message, timestamp, service, ...fields } = line!;
    expect({ level, message }).toEqual({ level: 'INFO', message: 'club polled' });
    expect(fields).toEqual({
      clubId: 'club-1',
      sources: 1,
      pages: 1,
      requests: 1,
      durationMs: 843,
      rateLimited: 2,
      quotaUsedShare: 0.123456,
      watermarkLagSecondsMax: 30,
    });
  });

  it("counts a batch's messages by outcome for its `poll batch done` line", () => {
    expect(batchFields(['polled', 'retry', 'polled', 'dropped'])).toEqual({
      messages: 4,
      polled: 2,
      retry: 1,
      dropped: 1,
    });
    expect(batchFields([])).toEqual({ messages: 0 });
  });
});
