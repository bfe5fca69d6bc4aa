/**
 * The chaos verdict itself: a checker that cannot fail proves nothing, so each rule is shown to
 * catch what it is there for (a lost change, a made-up one, a re-delivery no crash explains, one
 * eventId for two changes, a broken or unfinished chain of state changes).
 */
import { describe, expect, it } from 'vitest';
import type { BridgeEvent } from '../../lambdas/events/catalog';
import type { JournalEntry } from '../../sandbox';
import { checkAgainstJournal } from './journal-check';

let seq = 0;
const entry = (change: Record<string, unknown>): JournalEntry =>
  ({ seq: ++seq, clubId: 'club-1', at: '2026-01-01T00:00:00.000Z', ...change }) as unknown as JournalEntry;

const event = (detailType: string, eventId: string, detail: Record<string, unknown>): BridgeEvent =>
  ({ detailType, detail: { eventId, clubId: 'club-1', subject: {}, ...detail } }) as unknown as BridgeEvent;

const visit = (member: string, at: string) =>
  entry({ kind: 'visit', memberNumber: member, visitDateTime: at, door: 'Main', scanSource: 'Kiosk' });
const visitEvent = (id: string, member: string, at: string) =>
  event('Member Visit Recorded', id, { data: { MemberNumber: member, VisitDateTime: at, Door: 'Main' } });
const statusChange = (member: string, previous: string, current: string) =>
  entry({ kind: 'memberStatusChanged', memberNumber: member, previous, current });
const statusEvent = (id: string, member: string, previousStatus: string, status: string) =>
  event('Member Status Changed', id, { subject: { memberNumber: member }, previousStatus, status });

const journal = [visit('1', '2026-01-01T06:00:00'), visit('2', '2026-01-01T06:05:00')];

describe('checkAgainstJournal', () => {
  it('passes when every change arrived once', () => {
    const result = checkAgainstJournal(
      journal,
      [visitEvent('a', '1', '2026-01-01T06:00:00'), visitEvent('b', '2', '2026-01-01T06:05:00')],
      new Set(),
    );
    expect(result).toMatchObject({ missing: [], spurious: [], duplicates: 0, checked: 2, delivered: 2 });
  });

  it('reports a lost change as missing and a made-up one as spurious', () => {
    const result = checkAgainstJournal(
      journal,
      [visitEvent('a', '1', '2026-01-01T06:00:00'), visitEvent('c', '3', '2026-01-01T07:00:00')],
      new Set(),
    );
    expect(result.missing).toEqual(['V|club-1|2|2026-01-01T06:05:00|Main']);
    expect(result.spurious).toEqual(['V|club-1|3|2026-01-01T07:00:00|Main']);
  });

  it('allows a re-delivery only when a crash between publish and commit explains it', () => {
    const events = [
      visitEvent('a', '1', '2026-01-01T06:00:00'),
      visitEvent('a', '1', '2026-01-01T06:00:00'),
      visitEvent('b', '2', '2026-01-01T06:05:00'),
    ];
    expect(checkAgainstJournal(journal, events, new Set(['a']))).toMatchObject({
      duplicates: 1,
      unexplainedDuplicates: [],
      missing: [],
      spurious: [],
    });
    expect(checkAgainstJournal(journal, events, new Set()).unexplainedDuplicates).toHaveLength(1);
  });

  it('counts a change re-published under a new eventId as spurious', () => {
    const events = [
      visitEvent('a', '1', '2026-01-01T06:00:00'),
      visitEvent('a2', '1', '2026-01-01T06:00:00'),
      visitEvent('b', '2', '2026-01-01T06:05:00'),
    ];
    expect(checkAgainstJournal(journal, events, new Set(['a'])).spurious).toEqual([
      'V|club-1|1|2026-01-01T06:00:00|Main',
    ]);
  });

  it('flags one eventId used for two different changes', () => {
    const entries = [
      statusChange('7', 'Active', 'PaymentIssue'),
      statusChange('7', 'PaymentIssue', 'Suspended'),
    ];
    const result = checkAgainstJournal(
      entries,
      [statusEvent('x', '7', 'Active', 'PaymentIssue'), statusEvent('x', '7', 'Active', 'Suspended')],
      new Set(['x']),
    );
    expect(result.idConflicts).toHaveLength(1);
  });

  describe('state changes', () => {
    const entries = [
      statusChange('7', 'Active', 'PaymentIssue'),
      statusChange('7', 'PaymentIssue', 'Active'),
      statusChange('7', 'Active', 'Suspended'),
    ];

    it('accepts the net transitions polling saw, as long as they chain to the final state', () => {
      const seen = [
        statusEvent('s1', '7', 'Active', 'PaymentIssue'),
        statusEvent('s2', '7', 'PaymentIssue', 'Suspended'),
      ];
      expect(checkAgainstJournal(entries, seen, new Set())).toMatchObject({ missing: [], spurious: [] });
      const collapsed = [statusEvent('s1', '7', 'Active', 'Suspended')];
      expect(checkAgainstJournal(entries, collapsed, new Set())).toMatchObject({ missing: [], spurious: [] });
    });

    it('reports a final state never reached, a transition that never happened, and a broken chain', () => {
      const unfinished = checkAgainstJournal(
        entries,
        [statusEvent('s1', '7', 'Active', 'PaymentIssue')],
        new Set(),
      );
      expect(unfinished.missing).toHaveLength(1);
      const invented = checkAgainstJournal(
        entries,
        [statusEvent('s1', '7', 'Active', 'Cancelled')],
        new Set(),
      );
      expect(invented.spurious).toHaveLength(1);
      const broken = checkAgainstJournal(
        entries,
        [statusEvent('s1', '7', 'Active', 'PaymentIssue'), statusEvent('s2', '7', 'Active', 'Suspended')],
        new Set(),
      );
      expect(broken.spurious).toHaveLength(1);
    });

    it('flags a second announcement of a subject and a transition that restarts from an older state', () => {
      const created = [
        entry({ kind: 'prospectCreated', prospectNumber: 'P1', status: 'Enquiry' }),
        entry({ kind: 'prospectStatusChanged', prospectNumber: 'P1', previous: 'Enquiry', current: 'Tour' }),
      ];
      const announced = (id: string, status: string) =>
        event('Prospect Created', id, { subject: { prospectNumber: 'P1' }, status });
      expect(
        checkAgainstJournal(created, [announced('p1', 'Enquiry'), announced('p2', 'Tour')], new Set(['p1']))
          .spurious,
      ).toHaveLength(1);
      expect(checkAgainstJournal(created, [announced('p1', 'Enquiry')], new Set()).missing).toHaveLength(1);
      // A -> PaymentIssue published by a failed poll, then A -> Suspended: a consumer is left at the wrong state.
      const restarted = [
        statusEvent('s1', '7', 'Active', 'PaymentIssue'),
        statusEvent('s2', '7', 'Active', 'Suspended'),
      ];
      expect(checkAgainstJournal(entries, restarted, new Set(['s1'])).spurious).toHaveLength(1);
    });
  });
});
