import { describe, expect, it } from 'vitest';
import { DETAIL_TYPES, EventValidationError } from '../../../lambdas/events/catalog';
import { createEvent, sourceOf } from '../../../lambdas/events/envelope';
import { makeEventId } from '../../../lambdas/events/event-id';

const data = { MemberNumber: 'M1', Door: 'Front', ScanSource: 'Gate', VisitDateTime: '2025-06-01T06:00:00' };
const visit = (observedAt?: string) =>
  createEvent(
    DETAIL_TYPES.MemberVisitRecorded,
    {
      clubId: 'club-1',
      identity: ['M1', '2025-06-01T06:00:00', 'Front'],
      occurredAt: new Date('2025-05-31T20:00:00Z'),
      occurredAtLocal: '2025-06-01T06:00:00',
      ...(observedAt ? { observedAt } : {}),
      subject: { memberNumber: 'M1' },
    },
    { data },
  );

describe('createEvent', () => {
  it('fills the envelope from the catalog: version, fixed source, UTC times, subject', () => {
    const event = visit('2025-05-31T20:05:00Z');
    expect(event.detail).toEqual({
      eventId: makeEventId('club-1', 'visits', 'Member Visit Recorded', 'M1', '2025-06-01T06:00:00', 'Front'),
      eventVersion: 1,
      clubId: 'club-1',
      source: 'visits',
      occurredAt: '2025-05-31T20:00:00.000Z',
      occurredAtLocal: '2025-06-01T06:00:00',
      observedAt: '2025-05-31T20:05:00.000Z',
      subject: { memberNumber: 'M1' },
      data,
    });
  });

  it('gives a re-published event the same id, whenever it is observed', () => {
    expect(visit('2025-05-31T20:05:00Z').detail.eventId).toBe(visit().detail.eventId);
  });

  it('gives different detail-types of the same record and change different ids', () => {
    const options = { clubId: 'c', identity: ['M1', 'Active'], occurredAt: '2025-01-01T00:00:00Z' };
    const joined = createEvent(DETAIL_TYPES.MemberJoined, options, {
      data: { Number: 'M1' },
      status: 'Active',
    });
    const changed = createEvent(DETAIL_TYPES.MemberStatusChanged, options, {
      data: { Number: 'M1' },
      previousStatus: 'Suspended',
      status: 'Active',
    });
    expect(joined.detail.eventId).not.toBe(changed.detail.eventId);
  });

  it('applies the minimal PII policy unless the club opts into full', () => {
    const member = {
      Number: 'M1',
      LastName: 'Secret',
      Contact: { Email: 'm@example.com', OptOutEmail: true },
    };
    const options = { clubId: 'c', identity: ['M1'], occurredAt: '2025-01-01T00:00:00Z' };
    const minimal = createEvent(DETAIL_TYPES.MemberJoined, options, { data: member });
    expect(minimal.detail.data).toEqual({ Number: 'M1', Contact: { OptOutEmail: true } });
    const full = createEvent(DETAIL_TYPES.MemberJoined, { ...options, piiPolicy: 'full' }, { data: member });
    expect(full.detail.data).toEqual(member);
  });

  it('refuses zone-less or invalid times and invalid payloads', () => {
    const options = { clubId: 'c', identity: ['x'], occurredAt: '2025-01-01T00:00:00' };
    expect(() => createEvent(DETAIL_TYPES.MemberVisitRecorded, options, { data })).toThrow(/zone-less/);
    expect(() =>
      createEvent(DETAIL_TYPES.MemberVisitRecorded, { ...options, occurredAt: 'yesterday Z' }, { data }),
    ).toThrow(EventValidationError);
    expect(() =>
      createEvent(
        DETAIL_TYPES.ClubQuotaLow,
        { clubId: 'c', identity: ['x'], occurredAt: '2025-01-01T00:00:00Z' },
        { month: '2025-13', used: 1, limit: 10, share: 0.1, reason: 'threshold' },
      ),
    ).toThrow(EventValidationError);
  });

  it('knows the source of every detail-type', () => {
    expect(sourceOf(DETAIL_TYPES.PaymentFailed)).toBe('paymentHistory');
    expect(sourceOf(DETAIL_TYPES.ClubDataStale)).toBe('bridge');
  });
});
