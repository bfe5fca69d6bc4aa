import { describe, expect, it } from 'vitest';
import { exampleEvents } from '../../../event-tooling/examples';
import {
  ALL_DETAIL_TYPES,
  type BridgeEvent,
  DETAIL_TYPES,
  type DetailType,
  detailTypeFileName,
  detailTypeKey,
  EVENT_DESCRIPTIONS,
  EVENT_SCHEMAS,
  EventValidationError,
  eventJsonSchema,
  validateEvent,
} from '../../../lambdas/events/catalog';
import { checkAgainstSchema, draft04Violations } from './mini-json-schema';

type Detail = Record<string, unknown>;

/** One type-specific way to break each event, which both zod and the JSON Schema must reject. */
const BREAKERS: Record<DetailType, (d: Detail) => void> = {
  [DETAIL_TYPES.MemberVisitRecorded]: (d) => {
    (d.data as Detail).VisitDateTime = '2025-03-05 06:02';
  },
  [DETAIL_TYPES.PaymentSucceeded]: (d) => {
    d.paymentId = 12345;
  },
  [DETAIL_TYPES.PaymentFailed]: (d) => {
    d.reason = 'bounced';
  },
  [DETAIL_TYPES.PaymentRefunded]: (d) => {
    d.refundedPaymentId = 'abc';
  },
  [DETAIL_TYPES.PosTransactionRecorded]: (d) => {
    d.totalIncTax = '5.50';
  },
  [DETAIL_TYPES.DisbursementRecorded]: (d) => {
    delete d.amount;
  },
  [DETAIL_TYPES.MemberSentToDebtCollection]: (d) => {
    d.amount = null;
  },
  [DETAIL_TYPES.MemberJoined]: (d) => {
    delete ((d.data as Detail).Membership as Detail).Id;
  },
  [DETAIL_TYPES.MemberStatusChanged]: (d) => {
    d.status = '';
  },
  [DETAIL_TYPES.MembershipCancelled]: (d) => {
    d.cancellationDate = '2025-03-31';
  },
  [DETAIL_TYPES.MemberContactPreferencesChanged]: (d) => {
    (d.current as Detail).optOutEmail = 'yes';
  },
  [DETAIL_TYPES.ProspectCreated]: (d) => {
    ((d.data as Detail).Contact as Detail).OptOutSms = 'no';
  },
  [DETAIL_TYPES.ProspectStatusChanged]: (d) => {
    delete d.previousStatus;
  },
  [DETAIL_TYPES.ClassAttendanceRecorded]: (d) => {
    d.experimental = false;
  },
  [DETAIL_TYPES.MemberFirstVisit]: (d) => {
    d.visitedAt = '2025-03-05T08:31:45+11:00';
  },
  [DETAIL_TYPES.MemberInactive]: (d) => {
    d.thresholdDays = 0;
  },
  [DETAIL_TYPES.MemberReturned]: (d) => {
    delete d.lastVisitAt;
  },
  [DETAIL_TYPES.MembershipExpiring]: (d) => {
    d.kind = 'renewal';
  },
  [DETAIL_TYPES.PaymentRecovered]: (d) => {
    d.failedPaymentId = 12345;
  },
  [DETAIL_TYPES.ProspectTrialEnding]: (d) => {
    d.hoursLeft = 1.5;
  },
  [DETAIL_TYPES.ClubCredentialsRejected]: (d) => {
    d.consecutiveFailures = 0;
  },
  [DETAIL_TYPES.ClubQuotaLow]: (d) => {
    d.share = 1.5;
  },
  [DETAIL_TYPES.ClubDataStale]: (d) => {
    d.staleSource = 'bridge';
  },
  [DETAIL_TYPES.ClubSourceUnavailable]: (d) => {
    d.kind = 'gone';
  },
  [DETAIL_TYPES.WebhookDeliveryFailed]: (d) => {
    d.endpointId = 'https://hooks.example.com/catch/secret-token';
  },
  [DETAIL_TYPES.WebhookEndpointDisabled]: (d) => {
    d.lastStatus = 200.5;
  },
};

/** Envelope breakages every event must reject. */
const ENVELOPE_BREAKERS: Record<string, (d: Detail) => void> = {
  'eventId not 32 lowercase hex': (d) => {
    d.eventId = 'ABCDEF0123456789ABCDEF0123456789';
  },
  'eventVersion 2': (d) => {
    d.eventVersion = 2;
  },
  'occurredAt without Z': (d) => {
    d.occurredAt = '2025-03-04T19:02:11';
  },
  'observedAt missing': (d) => {
    delete d.observedAt;
  },
  'source of another detail-type': (d) => {
    d.source = d.source === 'members' ? 'prospects' : 'members';
  },
  'empty clubId': (d) => {
    d.clubId = '';
  },
};

const examples = exampleEvents();
const clone = (event: BridgeEvent): { detailType: DetailType; detail: Detail } =>
  structuredClone(event) as never;

describe('event catalog', () => {
  it('defines 26 detail-types, each with a schema, a description and an example', () => {
    expect(ALL_DETAIL_TYPES).toHaveLength(26);
    expect(Object.keys(EVENT_SCHEMAS).sort()).toEqual([...ALL_DETAIL_TYPES].sort());
    for (const detailType of ALL_DETAIL_TYPES) {
      expect(EVENT_DESCRIPTIONS[detailType].length).toBeGreaterThan(20);
      expect(examples[detailType]?.detailType).toBe(detailType);
    }
  });

  it('names detail-types readably and derives keys and file names from them', () => {
    expect(DETAIL_TYPES.MemberStatusChanged).toBe('Member Status Changed');
    expect(detailTypeKey('POS Transaction Recorded')).toBe('PosTransactionRecorded');
    expect(detailTypeFileName('POS Transaction Recorded')).toBe('pos-transaction-recorded');
    expect(new Set(ALL_DETAIL_TYPES.map(detailTypeFileName)).size).toBe(ALL_DETAIL_TYPES.length);
  });

  describe.each(ALL_DETAIL_TYPES)('%s', (detailType) => {
    const jsonSchema = eventJsonSchema(detailType);

    it('accepts its example, in zod and in the JSON Schema', () => {
      const event = clone(examples[detailType]);
      expect(validateEvent(event).detail).toEqual(event.detail);
      expect(checkAgainstSchema(jsonSchema, JSON.parse(JSON.stringify(event.detail)))).toEqual([]);
    });

    it('rejects a type-specific breakage, in zod and in the JSON Schema', () => {
      const event = clone(examples[detailType]);
      BREAKERS[detailType](event.detail);
      expect(() => validateEvent(event)).toThrow(EventValidationError);
      expect(checkAgainstSchema(jsonSchema, event.detail)).not.toEqual([]);
    });

    it.each(Object.entries(ENVELOPE_BREAKERS))('rejects an envelope breakage: %s', (_name, breakIt) => {
      const event = clone(examples[detailType]);
      breakIt(event.detail);
      expect(() => validateEvent(event)).toThrow(EventValidationError);
    });

    it('rejects fields the catalog does not define (producers cannot misspell a field)', () => {
      const event = clone(examples[detailType]);
      event.detail.statsu = 'Active';
      expect(() => validateEvent(event)).toThrow(/Unrecognized key/);
    });

    it('exports a draft-04 JSON Schema that survives a JSON round trip', () => {
      expect(jsonSchema.$schema).toBe('http://json-schema.org/draft-04/schema#');
      expect(jsonSchema.title).toBe(detailType);
      expect(JSON.parse(JSON.stringify(jsonSchema))).toEqual(jsonSchema);
      expect(draft04Violations(jsonSchema)).toEqual([]);
      const properties = jsonSchema.properties as Record<string, unknown>;
      for (const field of [
        'eventId',
        'eventVersion',
        'clubId',
        'source',
        'occurredAt',
        'observedAt',
        'subject',
      ]) {
        expect(properties).toHaveProperty(field);
        expect(jsonSchema.required).toContain(field);
      }
      expect(JSON.stringify(jsonSchema)).not.toContain('"additionalProperties":false');
    });
  });

  it('rejects unknown detail-types and non-objects without echoing their content', () => {
    expect(() => validateEvent({ detailType: 'Member Teleported', detail: {} })).toThrow(
      /unknown detail-type/,
    );
    expect(() => validateEvent(null)).toThrow(EventValidationError);
    const event = clone(examples[DETAIL_TYPES.MemberStatusChanged]);
    (event.detail.data as Detail).FirstName = 12345;
    try {
      validateEvent(event);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(EventValidationError);
      const e = err as EventValidationError;
      expect(e.message).toContain('data.FirstName');
      expect(e.message).toContain(event.detail.eventId as string);
      expect(e.message).not.toContain('12345');
      expect(e.issues.length).toBeGreaterThan(0);
    }
  });

  it('keeps int64 ids above 2^53 exact as strings', () => {
    const event = examples[DETAIL_TYPES.PaymentFailed];
    expect(event.detailType === DETAIL_TYPES.PaymentFailed && event.detail.paymentId).toBe(
      '9007199254740993',
    );
    expect(JSON.parse(JSON.stringify(event.detail)).data.Id).toBe('9007199254740993');
  });
});
