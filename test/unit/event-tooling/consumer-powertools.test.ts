/**
 * The consumer module with Powertools Parser and its EventBridge envelope, on events exactly as
 * the bridge publishes them (the examples of every detail-type through the publisher's toEntry).
 */

import { parse } from '@aws-lambda-powertools/parser';
import { EventBridgeEnvelope } from '@aws-lambda-powertools/parser/envelopes/eventbridge';
import { ParseError } from '@aws-lambda-powertools/parser/errors';
import { EventBridgeSchema } from '@aws-lambda-powertools/parser/schemas/eventbridge';
import {
  ALL_DETAIL_TYPES,
  DETAIL_TYPES,
  EVENT_SCHEMAS,
  EVENTBRIDGE_EVENT_SCHEMAS,
  type PaymentFailed,
  PaymentFailedDetail,
} from '@gym-bridge/events';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { exampleEvents } from '../../../event-tooling/examples';
import { deliveredEvent } from '../events/eventbridge-delivery';

const examples = exampleEvents();

describe('Powertools Parser with the EventBridge envelope and @gym-bridge/events', () => {
  it.each(ALL_DETAIL_TYPES)('parses a published %s event into its typed detail', (detailType) => {
    const event = deliveredEvent(examples[detailType]);
    const detail = parse(event, EventBridgeEnvelope, EVENT_SCHEMAS[detailType]);
    expect(detail).toEqual(examples[detailType].detail);
    // The whole event validates against Powertools' own EventBridge schema and the module's.
    expect(EventBridgeSchema.safeParse(event).success).toBe(true);
    expect(EVENTBRIDGE_EVENT_SCHEMAS[detailType].parse(event).detail).toEqual(examples[detailType].detail);
  });

  it('types the detail: a Payment Failed handler gets PaymentFailed', () => {
    const event = deliveredEvent(examples[DETAIL_TYPES.PaymentFailed]);
    const detail = parse(event, EventBridgeEnvelope, PaymentFailedDetail);
    expectTypeOf(detail).toEqualTypeOf<PaymentFailed>();
    expectTypeOf(detail.reason).toEqualTypeOf<'declined' | 'dishonoured' | 'unknown-response'>();
    expect(detail.reason).toBe('dishonoured');
    expect(detail.paymentId).toBe('9007199254740993');
  });

  it('rejects a malformed detail with a ParseError naming the field', () => {
    const event = deliveredEvent(examples[DETAIL_TYPES.PaymentFailed]);
    event.detail.reason = 'maybe';
    let error: unknown;
    try {
      parse(event, EventBridgeEnvelope, PaymentFailedDetail);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ParseError);
    expect((error as Error).message).toContain('reason');
    const issues = ((error as Error).cause as { issues: { path: PropertyKey[] }[] }).issues;
    expect(issues.map((i) => i.path.join('.'))).toEqual(['detail.reason']);
  });

  it('rejects a detail missing a required field, by its path, in safeParse mode too', () => {
    const event = deliveredEvent(examples[DETAIL_TYPES.MemberStatusChanged]);
    delete event.detail.status;
    const result = parse(event, EventBridgeEnvelope, EVENT_SCHEMAS[DETAIL_TYPES.MemberStatusChanged], true);
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error).toBeInstanceOf(ParseError);
    expect(result.error.message).toContain('status');
  });

  it('accepts a field added within the version (consumers tolerate additive changes) and drops it', () => {
    const event = deliveredEvent(examples[DETAIL_TYPES.PaymentFailed]);
    event.detail.newField = 'added later';
    (event.detail.subject as Record<string, unknown>).newSubjectField = 1;
    const detail = parse(event, EventBridgeEnvelope, PaymentFailedDetail) as Record<string, unknown>;
    expect(detail.newField).toBeUndefined();
    expect(detail.subject).toEqual(examples[DETAIL_TYPES.PaymentFailed].detail.subject);
  });
});
