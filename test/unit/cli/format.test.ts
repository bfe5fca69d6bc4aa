/**
 * The CLI's one-line club report: failures said once per distinct upstream error with the sources
 * listed, and a baseline named as such.
 */
import { describe, expect, it } from 'vitest';
import { describeEvent, formatClubReport, groupFailures } from '../../../cli/format';
import { exampleEvents } from '../../../event-tooling/examples';
import type { ClubReport, SourceFailure } from '../../../lambdas/engine/club-poll/poll-club';
import type { SourceReport } from '../../../lambdas/engine/club-poll/poll-source';

const source = (name: string, over: Partial<SourceReport> = {}): SourceReport => ({
  source: name,
  outcome: 'completed',
  pages: 1,
  records: 10,
  events: 0,
  quarantined: 0,
  attempts: 1,
  ...over,
});

const report = (over: Partial<ClubReport>): ClubReport => ({
  clubId: 'club-1',
  outcome: 'ok',
  sources: [],
  failures: [],
  requests: 8,
  tokenRequests: 1,
  operationalEvents: [],
  ...over,
});

describe('groupFailures', () => {
  it('one group per kind and message, the operation name of each source taken out', () => {
    const failures: SourceFailure[] = [
      { source: 'members', kind: 'unavailable', message: 'members: HTTP 503' },
      { source: 'visits', kind: 'unavailable', message: 'visits: HTTP 503' },
      { source: 'prospects', kind: 'unavailable', message: 'prospects: HTTP 503' },
      { source: 'paymentHistory', kind: 'invalid-response', message: 'paymentHistory: data is not an array' },
    ];
    expect(groupFailures(failures)).toEqual([
      { kind: 'unavailable', message: 'HTTP 503', sources: ['members', 'visits', 'prospects'] },
      { kind: 'invalid-response', message: 'data is not an array', sources: ['paymentHistory'] },
    ]);
  });

  it('the same text under two kinds stays two groups', () => {
    const failures: SourceFailure[] = [
      { source: 'members', kind: 'store', message: 'boom' },
      { source: 'visits', kind: 'publish', message: 'boom' },
    ];
    expect(groupFailures(failures)).toHaveLength(2);
  });
});

describe('formatClubReport', () => {
  it('eight sources failing the same way: said once, with the sources listed', () => {
    const names = ['members', 'visits', 'paymentHistory', 'posTransactions', 'prospects', 'disbursements'];
    const text = formatClubReport(
      report({
        outcome: 'failed',
        sources: [],
        failures: names.map((s) => ({
          source: s as SourceFailure['source'],
          kind: 'unavailable',
          message: `${s}: HTTP 503 after 3 attempts`,
        })),
      }),
    );
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^club-1: failed, /);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(
      `  6 sources (${names.join(', ')}) failed (unavailable): HTTP 503 after 3 attempts`,
    );
    expect(text.match(/HTTP 503/g)).toHaveLength(1);
  });

  it('a first poll says the baseline was recorded and that no events is by design', () => {
    const text = formatClubReport(
      report({ sources: [source('members', { mode: 'baseline' }), source('visits', { mode: 'baseline' })] }),
    );
    expect(text).toContain('baseline recorded, no events by design');
  });

  it('a regular poll with no events does not claim a baseline', () => {
    const text = formatClubReport(
      report({ sources: [source('members', { mode: 'tail' }), source('visits', { mode: 'baseline' })] }),
    );
    expect(text).not.toContain('baseline');
    expect(text).toMatch(/^club-1: ok, 2 sources, 20 records, 0 events, 8 requests$/);
  });

  it('a backfill says its events and whether it carries on', () => {
    const lane = (outcome: 'completed' | 'partial', events: number) => ({
      from: '2026-11-20T00:00:00.000Z',
      outcome,
      pages: 1,
      records: events,
      events,
    });
    const pending = formatClubReport(
      report({
        sources: [
          source('members', { mode: 'tail', backfill: lane('completed', 3) }),
          source('visits', { mode: 'tail', outcome: 'partial', backfill: lane('partial', 40) }),
        ],
      }),
    );
    expect(pending).toContain(
      'backfill from 2026-11-20T00:00:00.000Z: 43 events, 1 of 2 sources carry on at the next poll',
    );
    const done = formatClubReport(
      report({ sources: [source('members', { mode: 'tail', backfill: lane('completed', 3) })] }),
    );
    expect(done).toContain('backfill from 2026-11-20T00:00:00.000Z: 3 events, done');
  });

  it("says what the hour's lifecycle evaluation did, when the poll ran one", () => {
    const evaluated = (read: 'all' | 'noted') =>
      formatClubReport(report({ lifecycle: { outcome: 'evaluated', published: 2, ms: 31, read } }));
    expect(evaluated('noted')).toMatch(/, lifecycle evaluated \(read what was noted\): 2 events$/);
    expect(evaluated('all')).toContain('lifecycle evaluated (read everything): 2 events');
    const waiting = report({
      lifecycle: { outcome: 'waiting', reason: 'visits not current (failed or incomplete)' },
    });
    expect(formatClubReport(waiting)).toContain(
      'lifecycle waiting: visits not current (failed or incomplete)',
    );
    const failed = report({ lifecycle: { outcome: 'failed', error: 'StoreError: throttled' } });
    expect(formatClubReport(failed)).toContain('lifecycle failed: StoreError: throttled');
    expect(formatClubReport(report({}))).not.toContain('lifecycle');
  });
});

describe('describeEvent: lifecycle events', () => {
  it('says what each lifecycle event announces, with its subject', () => {
    const lines = Object.fromEntries(
      Object.entries(exampleEvents())
        .filter(([, e]) => e.detail.source === 'lifecycle')
        .map(([type, e]) => [type, describeEvent(e)]),
    );
    expect(Object.keys(lines)).toHaveLength(6);
    expect(lines['Member Inactive']).toMatch(/^member \S+ {2}no visit for \d+ days \(last /);
    expect(lines['Member First Visit']).toMatch(/first visit \d{4}-.* \(started /);
    expect(lines['Member Returned']).toMatch(/back .* after \d+ days/);
    expect(lines['Membership Expiring']).toMatch(/(expires|minimum term ends) .* \(\d+ days left\)/);
    expect(lines['Payment Recovered']).toMatch(/payment \d+ after .* \d+$/);
    expect(lines['Prospect Trial Ending']).toMatch(/^prospect \S+ {2}trial ends .* \(\d+ h left\)/);
  });
});
