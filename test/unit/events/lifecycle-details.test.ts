/**
 * The six lifecycle detail-types (docs/lifecycle.md, issue 19) as a contract: a correct detail of
 * each validates, in zod and in the exported JSON Schema; a detail without its subject's number, a
 * misspelt field, a negative count or a date with a zone does not.
 */
import { describe, expect, it } from 'vitest';
import {
  ALL_DETAIL_TYPES,
  BRIDGE_SOURCES,
  DETAIL_TYPES,
  type DetailType,
  EVENT_SCHEMAS,
  EventValidationError,
  eventJsonSchema,
  MEMBERSHIP_EXPIRING_KINDS,
  validateEvent,
} from '../../../lambdas/events/catalog';
import { checkAgainstSchema } from './mini-json-schema';

type Detail = Record<string, unknown>;

const envelope = (subject: Detail): Detail => ({
  eventId: '0123456789abcdef0123456789abcdef',
  eventVersion: 1,
  clubId: 'club-1',
  source: 'lifecycle',
  occurredAt: '2026-11-20T21:00:00.000Z',
  occurredAtLocal: '2026-11-21T08:00:00',
  observedAt: '2026-11-20T21:10:00.000Z',
  subject,
});
const member = envelope({ memberNumber: '100231' });
const prospect = envelope({ prospectNumber: 'P-2001' });

/** A correct detail of each lifecycle event, and the fields that hold a gym-local date-time. */
const CASES = {
  [DETAIL_TYPES.MemberFirstVisit]: {
    detail: { ...member, visitedAt: '2026-11-21T08:00:00', membershipStartDate: '2026-11-20T00:00:00' },
    dates: ['visitedAt', 'membershipStartDate'],
  },
  [DETAIL_TYPES.MemberInactive]: {
    detail: { ...member, lastVisitAt: '2026-11-07T08:00:00', inactiveDays: 14, thresholdDays: 14 },
    dates: ['lastVisitAt'],
  },
  [DETAIL_TYPES.MemberReturned]: {
    detail: {
      ...member,
      visitedAt: '2026-11-21T08:00:00',
      lastVisitAt: '2026-11-01T18:00:00',
      inactiveDays: 19,
    },
    dates: ['visitedAt', 'lastVisitAt'],
  },
  [DETAIL_TYPES.MembershipExpiring]: {
    detail: { ...member, kind: 'minimumTerm', date: '2026-12-01T00:00:00', daysLeft: 10 },
    dates: ['date'],
  },
  [DETAIL_TYPES.PaymentRecovered]: {
    detail: {
      ...member,
      paymentId: '9007199254741107',
      failedPaymentId: '9007199254741003',
      failedResponse: 'Declined - Insufficient Funds',
      failedAt: '2026-11-14T02:00:00',
      recoveredAt: '2026-11-21T08:00:00',
    },
    dates: ['failedAt', 'recoveredAt'],
  },
  [DETAIL_TYPES.ProspectTrialEnding]: {
    detail: { ...prospect, trialEndDate: '2026-11-22T00:00:00', hoursLeft: 23 },
    dates: ['trialEndDate'],
  },
} satisfies Record<string, { detail: Detail; dates: string[] }>;

type LifecycleType = keyof typeof CASES;
const LIFECYCLE_TYPES = Object.keys(CASES) as LifecycleType[];

const event = (detailType: DetailType, detail: Detail) => ({ detailType, detail });
const copy = (detailType: LifecycleType): Detail => structuredClone(CASES[detailType].detail);

/** Both checks refuse the detail: zod (what the producer validates) and the exported JSON Schema. */
function expectRejected(detailType: LifecycleType, detail: Detail, message?: RegExp): void {
  expect(() => validateEvent(event(detailType, detail))).toThrow(message ?? EventValidationError);
  expect(checkAgainstSchema(eventJsonSchema(detailType), detail)).not.toEqual([]);
}

describe('lifecycle detail-types', () => {
  it('are the six of issue 19, with source "lifecycle", between the record and the operational events', () => {
    expect(LIFECYCLE_TYPES).toEqual([
      'Member First Visit',
      'Member Inactive',
      'Member Returned',
      'Membership Expiring',
      'Payment Recovered',
      'Prospect Trial Ending',
    ]);
    const lifecycle = ALL_DETAIL_TYPES.filter((t) => EVENT_SCHEMAS[t].shape.source.value === 'lifecycle');
    expect(lifecycle).toEqual(LIFECYCLE_TYPES);
    const at = ALL_DETAIL_TYPES.indexOf(DETAIL_TYPES.MemberFirstVisit);
    expect(ALL_DETAIL_TYPES.slice(at, at + 6)).toEqual(LIFECYCLE_TYPES);
    expect(ALL_DETAIL_TYPES[at + 6]).toBe(DETAIL_TYPES.ClubCredentialsRejected);
    expect(BRIDGE_SOURCES.slice(-2)).toEqual(['bridge', 'lifecycle']);
    expect(MEMBERSHIP_EXPIRING_KINDS).toEqual(['expiry', 'minimumTerm']);
  });

  describe.each(LIFECYCLE_TYPES)('%s', (detailType) => {
    const numberKey = detailType === DETAIL_TYPES.ProspectTrialEnding ? 'prospectNumber' : 'memberNumber';
    const otherKey = numberKey === 'memberNumber' ? 'prospectNumber' : 'memberNumber';

    it('accepts a correct detail, in zod and in the JSON Schema, and carries no data', () => {
      const detail = copy(detailType);
      expect(validateEvent(event(detailType, detail)).detail).toEqual(detail);
      expect(checkAgainstSchema(eventJsonSchema(detailType), detail)).toEqual([]);
      expect(EVENT_SCHEMAS[detailType].shape).not.toHaveProperty('data');
      expect(() => validateEvent(event(detailType, { ...copy(detailType), data: {} }))).toThrow(
        /Unrecognized key/,
      );
    });

    it(`requires subject.${numberKey}: missing, empty, or only the other number`, () => {
      for (const subject of [{}, { [numberKey]: '' }, { [otherKey]: '100231' }]) {
        expectRejected(detailType, { ...copy(detailType), subject });
      }
      const required = (eventJsonSchema(detailType).properties as Record<string, Detail>).subject?.required;
      expect(required).toEqual([numberKey]);
    });

    it('rejects a misspelt field (an unknown key), in zod; the JSON Schema stays open', () => {
      const [field] = CASES[detailType].dates;
      const misspelt = { ...copy(detailType), [`${field}s`]: '2026-11-21T08:00:00' };
      expect(() => validateEvent(event(detailType, misspelt))).toThrow(/Unrecognized key/);
      const renamed = copy(detailType);
      renamed[`${field}s`] = renamed[field!];
      delete renamed[field!];
      expectRejected(detailType, renamed);
      expect(() =>
        validateEvent(event(detailType, { ...copy(detailType), subject: { [numberKey]: '1', x: 1 } })),
      ).toThrow(/Unrecognized key/);
    });

    it('rejects a gym-local date with a zone or an offset, or one that does not exist', () => {
      for (const field of CASES[detailType].dates) {
        for (const value of ['2026-12-01T00:00:00Z', '2026-12-01T00:00:00+11:00', '2026-02-30T00:00:00']) {
          expect(() => validateEvent(event(detailType, { ...copy(detailType), [field]: value }))).toThrow(
            EventValidationError,
          );
        }
        expectRejected(detailType, { ...copy(detailType), [field]: '2026-12-01T00:00:00Z' });
      }
    });

    it('rejects a source other than lifecycle', () => {
      expectRejected(detailType, { ...copy(detailType), source: 'bridge' });
    });
  });

  it('rejects negative or fractional counts: daysLeft, hoursLeft, inactiveDays; thresholdDays of 0', () => {
    const broken: [LifecycleType, string, number][] = [
      [DETAIL_TYPES.MembershipExpiring, 'daysLeft', -1],
      [DETAIL_TYPES.MembershipExpiring, 'daysLeft', 0.5],
      [DETAIL_TYPES.ProspectTrialEnding, 'hoursLeft', -1],
      [DETAIL_TYPES.ProspectTrialEnding, 'hoursLeft', 2.5],
      [DETAIL_TYPES.MemberInactive, 'inactiveDays', -3],
      [DETAIL_TYPES.MemberInactive, 'thresholdDays', 0],
      [DETAIL_TYPES.MemberReturned, 'inactiveDays', -1],
    ];
    for (const [detailType, field, value] of broken) {
      expectRejected(detailType, { ...copy(detailType), [field]: value });
    }
    // 0 days or hours left is the day or hour itself: valid.
    for (const [detailType, field] of [
      [DETAIL_TYPES.MembershipExpiring, 'daysLeft'],
      [DETAIL_TYPES.ProspectTrialEnding, 'hoursLeft'],
    ] as const) {
      expect(validateEvent(event(detailType, { ...copy(detailType), [field]: 0 })).detailType).toBe(
        detailType,
      );
    }
  });

  it('takes null for lastVisitAt (no visit seen), but not a missing lastVisitAt', () => {
    for (const detailType of [DETAIL_TYPES.MemberInactive, DETAIL_TYPES.MemberReturned] as const) {
      const detail = { ...copy(detailType), lastVisitAt: null };
      expect(validateEvent(event(detailType, detail)).detail).toEqual(detail);
      expect(checkAgainstSchema(eventJsonSchema(detailType), detail)).toEqual([]);
      const missing = copy(detailType);
      delete missing.lastVisitAt;
      expectRejected(detailType, missing);
    }
  });

  it('takes only the two kinds of Membership Expiring, and int64 strings for payment ids', () => {
    expect(
      validateEvent(
        event(DETAIL_TYPES.MembershipExpiring, { ...copy(DETAIL_TYPES.MembershipExpiring), kind: 'expiry' }),
      ).detailType,
    ).toBe(DETAIL_TYPES.MembershipExpiring);
    expectRejected(DETAIL_TYPES.MembershipExpiring, {
      ...copy(DETAIL_TYPES.MembershipExpiring),
      kind: 'cancellation',
    });
    for (const field of ['paymentId', 'failedPaymentId']) {
      expectRejected(DETAIL_TYPES.PaymentRecovered, {
        ...copy(DETAIL_TYPES.PaymentRecovered),
        [field]: 4107,
      });
      expectRejected(DETAIL_TYPES.PaymentRecovered, {
        ...copy(DETAIL_TYPES.PaymentRecovered),
        [field]: 'P-1',
      });
    }
  });
});
