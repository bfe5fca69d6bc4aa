/** parseBridgeEvent / parseDetail, the tolerant schemas and the JSON Schemas of @gym-bridge/events. */
import {
  ALL_DETAIL_TYPES,
  AnyEventBridgeEvent,
  DETAIL_TYPES,
  EVENT_SCHEMAS,
  EVENT_VERSION,
  type EventBridgeEvent,
  EventParseError,
  eventBridgeEventJsonSchema,
  eventJsonSchema,
  type MemberJoined,
  type MemberStatusChanged,
  type PaymentFailedEvent,
  parseBridgeEvent,
  parseDetail,
} from '@gym-bridge/events';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { exampleEvents } from '../../../event-tooling/examples';
import { EVENT_SCHEMAS as CATALOG_SCHEMAS } from '../../../lambdas/events/catalog';
import { deliveredEvent } from '../events/eventbridge-delivery';
import { draft04Violations, checkAgainstSchema as validate } from '../events/mini-json-schema';

const examples = exampleEvents();

function thrown(fn: () => unknown): EventParseError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(EventParseError);
    return error as EventParseError;
  }
  throw new Error('expected an EventParseError');
}

describe('parseBridgeEvent', () => {
  it.each(ALL_DETAIL_TYPES)('returns a published %s event typed, detail equal to what was published', (t) => {
    const event = deliveredEvent(examples[t]);
    const parsed = parseBridgeEvent(event);
    expect(parsed['detail-type']).toBe(t);
    expect(parsed.detail).toEqual(examples[t].detail);
    expect(AnyEventBridgeEvent.parse(event).detail).toEqual(examples[t].detail);
  });

  it('narrows by detail-type, and by the expected detail-type', () => {
    const event = deliveredEvent(examples[DETAIL_TYPES.MemberStatusChanged]);
    const parsed = parseBridgeEvent(event);
    if (parsed['detail-type'] === DETAIL_TYPES.MemberStatusChanged) {
      expectTypeOf(parsed.detail).toEqualTypeOf<MemberStatusChanged>();
    }
    const only = parseBridgeEvent(event, DETAIL_TYPES.MemberStatusChanged);
    expectTypeOf(only).toEqualTypeOf<EventBridgeEvent<'Member Status Changed'>>();
    expect(only.detail.status).toBe(
      (examples[DETAIL_TYPES.MemberStatusChanged].detail as MemberStatusChanged).status,
    );
  });

  it('refuses an event of another detail-type than expected', () => {
    const event = deliveredEvent(examples[DETAIL_TYPES.PaymentSucceeded]);
    const error = thrown(() =>
      parseBridgeEvent(event, [DETAIL_TYPES.PaymentFailed, DETAIL_TYPES.PaymentRefunded]),
    );
    expect(error.message).toBe(
      "unexpected detail-type 'Payment Succeeded' (expected 'Payment Failed' or 'Payment Refunded')",
    );
  });

  it('names the detail-type, the eventId and the field path of an invalid detail, not its value', () => {
    const event = deliveredEvent(examples[DETAIL_TYPES.PaymentFailed]);
    event.detail.amount = 'secret-looking value';
    const error = thrown(() => parseBridgeEvent<PaymentFailedEvent['detail-type']>(event));
    expect(error.detailType).toBe('Payment Failed');
    expect(error.eventId).toBe(examples[DETAIL_TYPES.PaymentFailed].detail.eventId);
    expect(error.issues.map((i) => i.path)).toEqual(['detail.amount']);
    expect(error.message).toMatch(/^invalid 'Payment Failed' event [0-9a-f]{32}: detail\.amount: /);
    expect(error.message).not.toContain('secret-looking');
  });

  it('names a missing EventBridge field', () => {
    const { account: _account, ...event } = deliveredEvent(examples[DETAIL_TYPES.ClubQuotaLow]);
    const error = thrown(() => parseBridgeEvent(event));
    expect(error.issues.map((i) => i.path)).toEqual(['account']);
  });

  it('refuses an unknown detail-type and a non-object', () => {
    const event = {
      ...deliveredEvent(examples[DETAIL_TYPES.MemberJoined]),
      'detail-type': 'Member Teleported',
    };
    expect(thrown(() => parseBridgeEvent(event)).message).toBe(
      'not a gym-bridge event: unknown detail-type "Member Teleported" (a newer detail-type? update the module)',
    );
    expect(thrown(() => parseBridgeEvent(null)).message).toBe('not an EventBridge event: expected an object');
    expect(thrown(() => parseBridgeEvent([])).message).toBe('not an EventBridge event: expected an object');
  });

  it('says what to do about another eventVersion', () => {
    const event = deliveredEvent(examples[DETAIL_TYPES.MemberJoined]);
    event.detail.eventVersion = EVENT_VERSION + 1;
    const error = thrown(() => parseBridgeEvent(event));
    expect(error.message).toContain(
      `has eventVersion ${EVENT_VERSION + 1}; this module parses eventVersion ${EVENT_VERSION}`,
    );
    expect(error.message).toContain('detail.eventVersion');
    expect(error.issues).toEqual([{ path: 'detail.eventVersion', message: `expected ${EVENT_VERSION}` }]);
  });
});

describe('parseDetail', () => {
  it('returns the detail typed', () => {
    const detail = parseDetail(
      DETAIL_TYPES.MemberStatusChanged,
      examples[DETAIL_TYPES.MemberStatusChanged].detail,
    );
    expectTypeOf(detail).toEqualTypeOf<MemberStatusChanged>();
    expect(detail).toEqual(examples[DETAIL_TYPES.MemberStatusChanged].detail);
  });

  it('lists every failing path, relative to the detail', () => {
    const detail = { ...examples[DETAIL_TYPES.ClubQuotaLow].detail, share: 2, month: '2026-13' };
    const error = thrown(() => parseDetail(DETAIL_TYPES.ClubQuotaLow, detail));
    expect(error.issues.map((i) => i.path).sort()).toEqual(['month', 'share']);
    expect(error.message).toMatch(/^invalid 'Club Quota Low' detail [0-9a-f]{32}: /);
  });

  it('refuses an unknown detail-type', () => {
    expect(thrown(() => parseDetail('Nope' as never, {})).message).toBe('unknown detail-type "Nope"');
  });
});

describe('tolerant schemas: the catalog refuses unknown keys, the consumer module drops them', () => {
  it.each(ALL_DETAIL_TYPES)('%s: an added field at the top and in subject', (t) => {
    const detail = {
      ...examples[t].detail,
      addedLater: { any: 'thing' },
      subject: { ...examples[t].detail.subject, addedLater: true },
    };
    expect(CATALOG_SCHEMAS[t].safeParse(detail).success).toBe(false);
    expect(EVENT_SCHEMAS[t].parse(detail)).toEqual(examples[t].detail);
  });

  it('keeps unknown fields of the API records in data (loose, as the catalog does)', () => {
    const detail = examples[DETAIL_TYPES.MemberJoined].detail as MemberJoined;
    const withExtra = { ...detail, data: { ...detail.data, UpstreamAddedField: 'kept' } };
    expect(
      (parseDetail(DETAIL_TYPES.MemberJoined, withExtra).data as Record<string, unknown>).UpstreamAddedField,
    ).toBe('kept');
  });

  it('still refuses what the catalog refuses inside known fields (nested objects too)', () => {
    const detail = examples[DETAIL_TYPES.MemberContactPreferencesChanged].detail;
    const bad = { ...detail, current: { optOutEmail: 'yes', optOutSms: null } };
    expect(
      thrown(() => parseDetail(DETAIL_TYPES.MemberContactPreferencesChanged, bad)).issues.map((i) => i.path),
    ).toEqual(['current.optOutEmail']);
  });
});

describe('JSON Schemas', () => {
  it.each(ALL_DETAIL_TYPES)(
    'the EventBridge event schema of %s embeds its detail schema and accepts the event',
    (t) => {
      const schema = eventBridgeEventJsonSchema(t);
      const { $schema: _s, title: _t, description: _d, ...detail } = eventJsonSchema(t);
      expect(schema.$schema).toBe('http://json-schema.org/draft-04/schema#');
      expect(draft04Violations(schema)).toEqual([]);
      expect((schema.properties as Record<string, unknown>).detail).toMatchObject(detail);
      const event = deliveredEvent(examples[t]);
      expect(validate(schema, event)).toEqual([]);
      expect(validate(schema, { ...event, 'detail-type': 'Other' })).not.toEqual([]);
      expect(validate(schema, { ...event, detail: { ...event.detail, eventId: 'x' } })).not.toEqual([]);
    },
  );

  it('pins the source when asked', () => {
    const schema = eventBridgeEventJsonSchema(DETAIL_TYPES.ProspectCreated, { source: 'gym-bridge-prod' });
    const event = deliveredEvent(examples[DETAIL_TYPES.ProspectCreated]);
    expect(validate(schema, event)).not.toEqual([]);
    expect(validate(schema, { ...event, source: 'gym-bridge-prod' })).toEqual([]);
  });
});
