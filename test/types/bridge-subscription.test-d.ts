/**
 * Compile-time checks of the typed subscriptions (lib/constructs/bridge-subscription.ts). This file
 * is checked by `tsc --noEmit` (npm test's typecheck covers test/): each `@ts-expect-error` line
 * must be an error, or tsc fails with "Unused '@ts-expect-error' directive". So a subscription
 * with a typo in a detail-type, in a field path or a value of the wrong type does not compile.
 * test/types/bridge-subscription-types.test.ts runs the same checks with vitest's expectTypeOf.
 */
import { App, Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import { DETAIL_TYPES } from '../../lambdas/events/catalog';
import {
  BridgeSubscription,
  bridgePattern,
  subscriptionSpec,
} from '../../lib/constructs/bridge-subscription';

const stack = new Stack(new App(), 'TypeChecks');
const eventBus = events.EventBus.fromEventBusName(stack, 'Bus', 'gym-bridge-prod');

// Valid subscriptions compile.
new BridgeSubscription(stack, 'Ok', {
  eventBus,
  detailType: 'Payment Failed',
  detail: {
    reason: ['dishonoured', 'declined'],
    amount: [{ numeric: ['>', 0, '<=', 500] }],
    response: [{ prefix: 'Dishonoured' }, { 'anything-but': { suffix: 'Test' } }],
    previousResponse: [{ exists: true }],
    eventVersion: [1],
    data: { PaymentType: ['DD'], Refund: { IsRefunded: [false] } },
    subject: { memberNumber: [{ wildcard: 'M1*' }] },
    $or: [{ isDishonourFee: [true] }, { reason: [{ 'anything-but': ['declined'] }] }],
  },
});
bridgePattern({ detailType: DETAIL_TYPES.MemberStatusChanged, detail: { previousStatus: [null, 'Active'] } });
bridgePattern({
  detailType: [DETAIL_TYPES.ProspectCreated, DETAIL_TYPES.ProspectStatusChanged],
  detail: { status: ['OnTrial'], data: { Contact: { OptOutEmail: [false] } } },
});
bridgePattern({ detailType: 'Class Attendance Recorded', detail: { data: { AnyRawField: ['x'] } } });

// 1. A typo in a detail-type.
// @ts-expect-error 'Payment Faild' is not a detail-type of the catalog
bridgePattern({ detailType: 'Payment Faild' });
new BridgeSubscription(stack, 'TypoDetailType', {
  eventBus,
  // @ts-expect-error 'Member Status Change' is not a detail-type of the catalog
  detailType: ['Member Status Change'],
});

// 2. A typo in a field path.
bridgePattern({
  detailType: 'Payment Failed',
  // @ts-expect-error `reasn` is not a field of Payment Failed
  detail: { reasn: ['dishonoured'] },
});
bridgePattern({
  detailType: 'Member Status Changed',
  // @ts-expect-error `Stauts` is not a field of a member record (data is an open record, its known fields only)
  detail: { data: { Stauts: ['PaymentIssue'] } },
});
bridgePattern({
  detailType: 'Member Status Changed',
  // @ts-expect-error `$or` branches are checked too
  detail: { $or: [{ status: ['PaymentIssue'] }, { statsu: ['Active'] }] },
});

// 3. A value of the wrong type.
bridgePattern({
  detailType: 'Payment Failed',
  // @ts-expect-error 'dishonored' is not one of reason's values (declined, dishonoured, unknown-response)
  detail: { reason: ['dishonored'] },
});
bridgePattern({
  detailType: 'Payment Failed',
  // @ts-expect-error amount is a number, not a string
  detail: { amount: ['40'] },
});
bridgePattern({
  detailType: 'Member Status Changed',
  // @ts-expect-error `status` is a string: numeric does not apply
  detail: { status: [{ numeric: ['>', 1] }] },
});
bridgePattern({
  detailType: 'Member Status Changed',
  // @ts-expect-error a leaf is a list of values, not a bare value
  detail: { status: 'PaymentIssue' },
});
bridgePattern({
  detailType: 'Payment Failed',
  // @ts-expect-error eventVersion is pinned to the catalog's version (1)
  detail: { eventVersion: [2] },
});

// 4. Several detail-types: only the fields all of them have.
bridgePattern({
  detailType: ['Payment Failed', 'Payment Succeeded'],
  // @ts-expect-error `reason` is a field of Payment Failed only
  detail: { reason: ['dishonoured'] },
});
bridgePattern({ detailType: ['Payment Failed', 'Payment Succeeded'], detail: { paymentType: ['DD'] } });

// 5. Shared specs are checked where they are written.
// @ts-expect-error `staus` is not a field of Member Status Changed
subscriptionSpec({ detailType: 'Member Status Changed', detail: { staus: ['PaymentIssue'] } });

// 6. Lifecycle events: their fields, enums and counts are typed like the others'.
bridgePattern({
  detailType: [DETAIL_TYPES.MemberInactive, DETAIL_TYPES.MemberReturned],
  detail: { inactiveDays: [{ numeric: ['>=', 30] }], lastVisitAt: [null], subject: { memberNumber: ['1'] } },
});
bridgePattern({
  detailType: 'Membership Expiring',
  detail: { kind: ['expiry'], daysLeft: [{ numeric: ['<=', 7] }] },
});
bridgePattern({
  detailType: 'Membership Expiring',
  // @ts-expect-error 'renewal' is not one of kind's values (expiry, minimumTerm)
  detail: { kind: ['renewal'] },
});
bridgePattern({
  detailType: 'Prospect Trial Ending',
  // @ts-expect-error hoursLeft is a number, not a string
  detail: { hoursLeft: ['24'] },
});
bridgePattern({
  detailType: 'Payment Recovered',
  // @ts-expect-error lifecycle events carry no API record in `data`
  detail: { data: { Response: ['Approved'] } },
});
