import { describe, expect, it } from 'vitest';
import { FreshnessTracker } from '../../../bench/freshness';
import { DETAIL_TYPES } from '../../../lambdas/events/catalog';
import { createEvent } from '../../../lambdas/events/envelope';
import type { JournalEntry } from '../../../sandbox';

const at = (s: number) => new Date(Date.UTC(2026, 2, 2, 0, 0, s)).toISOString();

const visit = (seq: number, s: number, member: string): JournalEntry =>
  ({
    seq,
    clubId: 'c1',
    at: at(s),
    kind: 'visit',
    memberNumber: member,
    visitDateTime: '2026-03-02T11:00:00',
    door: 'Main',
    scanSource: 'Barcode',
  }) as JournalEntry;

const statusChange = (seq: number, s: number, previous: string, current: string): JournalEntry =>
  ({
    seq,
    clubId: 'c1',
    at: at(s),
    kind: 'memberStatusChanged',
    memberNumber: 'M1',
    previous,
    current,
  }) as JournalEntry;

const visitEvent = (member: string) =>
  createEvent(
    DETAIL_TYPES.MemberVisitRecorded,
    { clubId: 'c1', identity: [member], occurredAt: new Date(0), subject: { memberNumber: member } },
    { data: { MemberNumber: member, VisitDateTime: '2026-03-02T11:00:00', Door: 'Main' } } as never,
  );

const statusEvent = (previous: string, status: string) =>
  createEvent(
    DETAIL_TYPES.MemberStatusChanged,
    { clubId: 'c1', identity: ['M1', status], occurredAt: new Date(0), subject: { memberNumber: 'M1' } },
    { data: { Number: 'M1' }, previousStatus: previous, status } as never,
  );

describe('FreshnessTracker', () => {
  it('measures each event from the journal entry of the change it reports', () => {
    const tracker = new FreshnessTracker();
    tracker.addEntries([visit(1, 10, 'A'), visit(2, 40, 'B')]);
    tracker.published([visitEvent('A'), visitEvent('B')], Date.parse(at(70)));
    expect(tracker.samples.map((s) => s.delayMs)).toEqual([60_000, 30_000]);
    expect(tracker.pendingCount).toBe(0);
    expect(tracker.unmatchedEvents).toBe(0);
  });

  it('counts an event without a journal entry as unmatched', () => {
    const tracker = new FreshnessTracker();
    tracker.published([visitEvent('Z')], Date.parse(at(5)));
    expect(tracker.unmatchedEvents).toBe(1);
    expect(tracker.samples).toEqual([]);
  });

  it('supersedes a status change that changed again before any event, and measures from the last one', () => {
    const tracker = new FreshnessTracker();
    tracker.addEntries([
      statusChange(1, 0, 'Active', 'PaymentIssue'),
      statusChange(2, 50, 'PaymentIssue', 'Suspended'),
    ]);
    tracker.published([statusEvent('Active', 'Suspended')], Date.parse(at(60)));
    expect(tracker.superseded).toBe(1);
    expect(tracker.samples.map((s) => s.delayMs)).toEqual([10_000]);
    expect(tracker.pendingCount).toBe(0);
  });

  it('lists changes still waiting for an event after a while as overdue', () => {
    const tracker = new FreshnessTracker();
    tracker.addEntries([visit(1, 0, 'A')]);
    expect(tracker.overdue(Date.parse(at(0)) + 3 * 3_600_000, 2 * 3_600_000)).toEqual({ visit: 1 });
  });
});
