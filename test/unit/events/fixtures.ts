/** Test events for publisher and sink tests. */
import { type BridgeEvent, DETAIL_TYPES } from '../../../lambdas/events/catalog';
import { createEvent } from '../../../lambdas/events/envelope';

export function visitEvents(count: number, clubId = 'club-1'): BridgeEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const local = `2025-06-01T06:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;
    return createEvent(
      DETAIL_TYPES.MemberVisitRecorded,
      {
        clubId,
        identity: [`M${i}`, local],
        occurredAt: `${local}Z`,
        occurredAtLocal: local,
        observedAt: '2025-06-01T07:00:00Z',
        subject: { memberNumber: `M${i}` },
      },
      { data: { MemberNumber: `M${i}`, Door: 'Secret Door Name', ScanSource: 'Gate', VisitDateTime: local } },
    );
  });
}

/** Class attendance events whose raw data makes each about `bytes` large. */
export function largeEvents(count: number, bytes: number): BridgeEvent[] {
  return Array.from({ length: count }, (_, i) =>
    createEvent(
      DETAIL_TYPES.ClassAttendanceRecorded,
      { clubId: 'club-1', identity: [`big-${i}`], occurredAt: '2025-06-01T06:00:00Z', piiPolicy: 'full' },
      { data: { BookingId: i, Notes: 'x'.repeat(bytes) }, experimental: true },
    ),
  );
}

/** A member's contact-preference transitions, in order: (false,true) -> (true,true) -> (false,true). */
export function contactTransitions(memberNumber = '100038', clubId = 'club-1'): BridgeEvent[] {
  const states = [
    { optOutEmail: false, optOutSms: true },
    { optOutEmail: true, optOutSms: true },
    { optOutEmail: false, optOutSms: true },
  ];
  return [1, 2].map((n) =>
    createEvent(
      DETAIL_TYPES.MemberContactPreferencesChanged,
      {
        clubId,
        identity: [memberNumber, 'contact', String(n), `${states[n]!.optOutEmail},${states[n]!.optOutSms}`],
        occurredAt: '2025-06-01T06:00:00Z',
        observedAt: '2025-06-01T07:00:00Z',
        subject: { memberNumber },
      },
      { data: { Number: memberNumber }, previous: states[n - 1]!, current: states[n]! },
    ),
  );
}
