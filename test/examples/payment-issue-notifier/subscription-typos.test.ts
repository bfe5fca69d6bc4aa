/**
 * A typo in the example's subscriptions does not compile. Each `@ts-expect-error` below is a
 * planted typo in a subscription written as the example stack writes it; `npm test` type-checks
 * this file (tsc fails on a directive that meets no error, so a typo that compiled would fail the
 * build). At run time the correctly spelt subscriptions give the stack's patterns.
 */
import { DETAIL_TYPES, EVENT_VERSION } from '@gym-bridge/events';
import { App, Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import { describe, expect, it } from 'vitest';
import {
  DISHONOURED,
  PAYMENT_ISSUE_STATUS,
} from '../../../examples/payment-issue-notifier/src/payment-alerts';
import { BridgeSubscription, toEventPatternJson } from '../../../lib/constructs/bridge-subscription';

function scope() {
  const stack = new Stack(new App(), 'Subscriptions');
  const eventBus = events.EventBus.fromEventBusArn(
    stack,
    'Bus',
    'arn:aws:events:eu-west-1:123456789012:event-bus/gym-bridge',
  );
  return { stack, eventBus };
}

describe('the example subscriptions are checked by the compiler', () => {
  it('compiles when spelt right, with the patterns of the stack', () => {
    const { stack, eventBus } = scope();
    const paymentIssue = new BridgeSubscription(stack, 'PaymentIssue', {
      eventBus,
      detailType: DETAIL_TYPES.MemberStatusChanged,
      detail: { eventVersion: [EVENT_VERSION], status: [PAYMENT_ISSUE_STATUS] },
    });
    const dishonoured = new BridgeSubscription(stack, 'Dishonoured', {
      eventBus,
      detailType: DETAIL_TYPES.PaymentFailed,
      detail: { eventVersion: [EVENT_VERSION], reason: [DISHONOURED] },
    });
    expect(toEventPatternJson(paymentIssue.pattern)).toEqual({
      source: ['gym-bridge'],
      'detail-type': ['Member Status Changed'],
      detail: { eventVersion: [1], status: ['PaymentIssue'] },
    });
    expect(toEventPatternJson(dishonoured.pattern)).toEqual({
      source: ['gym-bridge'],
      'detail-type': ['Payment Failed'],
      detail: { eventVersion: [1], reason: ['dishonoured'] },
    });
  });

  it('does not compile with a typo in the detail-type, a field path or a value', () => {
    const { stack, eventBus } = scope();
    new BridgeSubscription(stack, 'DetailTypeTypo', {
      eventBus,
      // @ts-expect-error: 'Member Status Change' is not a detail-type of the catalog
      detailType: 'Member Status Change',
    });
    new BridgeSubscription(stack, 'FieldTypo', {
      eventBus,
      detailType: DETAIL_TYPES.MemberStatusChanged,
      detail: {
        // @ts-expect-error: Member Status Changed has no field 'stauts'
        stauts: [PAYMENT_ISSUE_STATUS],
      },
    });
    new BridgeSubscription(stack, 'NestedFieldTypo', {
      eventBus,
      detailType: DETAIL_TYPES.MemberStatusChanged,
      detail: {
        // @ts-expect-error: subject has memberNumber, not memberNo
        subject: { memberNo: [{ exists: true }] },
      },
    });
    new BridgeSubscription(stack, 'FieldOfAnotherType', {
      eventBus,
      detailType: DETAIL_TYPES.MemberStatusChanged,
      detail: {
        // @ts-expect-error: 'reason' is a field of Payment Failed, not of Member Status Changed
        reason: [DISHONOURED],
      },
    });
    new BridgeSubscription(stack, 'EnumValueTypo', {
      eventBus,
      detailType: DETAIL_TYPES.PaymentFailed,
      detail: {
        // @ts-expect-error: the reasons are declined, dishonoured and unknown-response
        reason: ['dishonored'],
      },
    });
    new BridgeSubscription(stack, 'ValueOfTheWrongType', {
      eventBus,
      detailType: DETAIL_TYPES.PaymentFailed,
      detail: {
        // @ts-expect-error: eventVersion is a number
        eventVersion: ['1'],
      },
    });
    // The rules exist at run time (the compiler is what refuses them).
    expect(stack.node.children.filter((c) => c instanceof BridgeSubscription)).toHaveLength(6);
  });
});
