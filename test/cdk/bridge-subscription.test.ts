/**
 * BridgeSubscription / bridgePattern (lib/constructs/bridge-subscription.ts): the rule it
 * synthesizes has exactly the hand-written pattern, and that pattern (read back from the
 * template, checked with the offline matcher) matches the events the bridge publishes of its
 * detail-types and no others. Compile-time checks: test/types/.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { toEventBridgeEvent } from '../../event-tooling/eventbridge-event';
import { exampleEvents } from '../../event-tooling/examples';
import {
  ALL_DETAIL_TYPES,
  type BridgeEvent,
  DEFAULT_EVENT_SOURCE,
  DETAIL_TYPES,
  type DetailType,
} from '../../lambdas/events/catalog';
import { matchesEventPattern } from '../../lambdas/events/event-pattern';
import {
  BridgeSubscription,
  bridgePattern,
  toEventPatternJson,
} from '../../lib/constructs/bridge-subscription';
import { BridgeEventBus } from '../../lib/constructs/event-bus';
import {
  EXAMPLE_SUBSCRIPTIONS,
  ExampleRules,
  exampleEventPatterns,
} from '../../lib/constructs/example-rules';

type RuleResource = { Properties: { EventPattern: Record<string, unknown>; Description?: string } };

function rulesOf(template: Template): Record<string, RuleResource> {
  return template.findResources('AWS::Events::Rule') as Record<string, RuleResource>;
}

function ruleByLogicalIdPrefix(template: Template, prefix: string): Record<string, unknown> {
  const found = Object.entries(rulesOf(template)).filter(([id]) => id.startsWith(prefix));
  expect(found, prefix).toHaveLength(1);
  return found[0]![1].Properties.EventPattern;
}

const examples = exampleEvents();
const deliveries = (source: string) =>
  ALL_DETAIL_TYPES.map((t) => ({ detailType: t, event: toEventBridgeEvent(examples[t], { source }) }));

/** The detail-types whose example event the pattern matches. */
const matchedTypes = (pattern: Record<string, unknown>, source = DEFAULT_EVENT_SOURCE): DetailType[] =>
  deliveries(source)
    .filter(({ event }) => matchesEventPattern(pattern, event))
    .map(({ detailType }) => detailType);

describe('BridgeSubscription synthesizes the hand-written pattern', () => {
  it('same EventPattern JSON as events.Rule with the pattern written by hand', () => {
    const stack = new Stack(new App(), 'Consumer');
    const eventBus = events.EventBus.fromEventBusName(stack, 'Bus', 'gym-bridge-prod');
    const queue = new sqs.Queue(stack, 'Queue');
    new BridgeSubscription(stack, 'Typed', {
      eventBus,
      detailType: DETAIL_TYPES.PaymentFailed,
      detail: {
        reason: ['dishonoured'],
        amount: [{ numeric: ['>', 0, '<=', 500] }],
        data: { PaymentType: ['DD'] },
        response: [{ 'anything-but': { prefix: 'Test' } }],
      },
      targets: [new targets.SqsQueue(queue)],
    });
    new events.Rule(stack, 'HandWritten', {
      eventBus,
      eventPattern: {
        source: ['gym-bridge'],
        detailType: ['Payment Failed'],
        detail: {
          reason: ['dishonoured'],
          amount: [{ numeric: ['>', 0, '<=', 500] }],
          data: { PaymentType: ['DD'] },
          response: [{ 'anything-but': { prefix: 'Test' } }],
        },
      },
      targets: [new targets.SqsQueue(queue)],
    });
    const template = Template.fromStack(stack);
    const typed = ruleByLogicalIdPrefix(template, 'Typed');
    expect(typed).toEqual(ruleByLogicalIdPrefix(template, 'HandWritten'));
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: 'gym-bridge-prod',
      EventPattern: {
        source: ['gym-bridge'],
        'detail-type': ['Payment Failed'],
        detail: Match.objectEquals({
          reason: ['dishonoured'],
          amount: [{ numeric: ['>', 0, '<=', 500] }],
          data: { PaymentType: ['DD'] },
          response: [{ 'anything-but': { prefix: 'Test' } }],
        }),
      },
      Targets: Match.arrayWith([Match.objectLike({ Arn: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] } })]),
    });
  });

  it('no detail key without a detail pattern; a list of detail-types is kept in order', () => {
    expect(
      bridgePattern({ eventSource: 'gym-bridge.dev', detailType: ['Payment Succeeded', 'Payment Failed'] }),
    ).toStrictEqual({ source: ['gym-bridge.dev'], detailType: ['Payment Succeeded', 'Payment Failed'] });
  });

  it('takes the source of a BridgeEventBus, or the one given', () => {
    const stack = new Stack(new App(), 'Bridge');
    const bus = new BridgeEventBus(stack, 'Events', { eventSource: 'acme.gyms' });
    new BridgeSubscription(stack, 'FromBus', { eventBus: bus, detailType: 'Member Joined' });
    new BridgeSubscription(stack, 'Given', {
      eventBus: bus,
      eventSource: 'other',
      detailType: 'Member Joined',
    });
    const template = Template.fromStack(stack);
    expect(ruleByLogicalIdPrefix(template, 'FromBus')).toEqual({
      source: ['acme.gyms'],
      'detail-type': ['Member Joined'],
    });
    expect(ruleByLogicalIdPrefix(template, 'Given')).toEqual({
      source: ['other'],
      'detail-type': ['Member Joined'],
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: ['acme.gyms'] },
      EventBusName: { Ref: Match.stringLikeRegexp('^EventsBus') },
    });
  });

  it('refuses an empty list of detail-types', () => {
    expect(() => bridgePattern({ detailType: [] })).toThrow(/empty list/);
  });

  it('toEventPatternJson renames detailType only', () => {
    expect(
      toEventPatternJson(bridgePattern({ detailType: 'Member Joined', detail: { clubId: ['c'] } })),
    ).toEqual({
      source: ['gym-bridge'],
      'detail-type': ['Member Joined'],
      detail: { clubId: ['c'] },
    });
  });
});

describe('a subscription matches the events the bridge publishes of its detail-types, and no others', () => {
  it.each(ALL_DETAIL_TYPES.map((t) => [t]))('%s', (detailType) => {
    const stack = new Stack(new App(), 'One');
    const eventBus = events.EventBus.fromEventBusName(stack, 'Bus', 'b');
    new BridgeSubscription(stack, 'Sub', { eventBus, detailType });
    const pattern = ruleByLogicalIdPrefix(Template.fromStack(stack), 'Sub');
    expect(matchedTypes(pattern)).toEqual([detailType]);
    expect(matchedTypes(pattern, 'gym-bridge.dev')).toEqual([]);
  });

  it('a detail condition narrows the match (Payment Failed, reason dishonoured / declined)', () => {
    const failed = examples[DETAIL_TYPES.PaymentFailed] as Extract<
      BridgeEvent,
      { detailType: 'Payment Failed' }
    >;
    expect(failed.detail.reason).toBe('dishonoured');
    const dishonoured = toEventPatternJson(
      bridgePattern({ detailType: 'Payment Failed', detail: { reason: ['dishonoured'] } }),
    );
    const declined = toEventPatternJson(
      bridgePattern({ detailType: 'Payment Failed', detail: { reason: ['declined'] } }),
    );
    expect(matchedTypes(dishonoured)).toEqual(['Payment Failed']);
    expect(matchedTypes(declined)).toEqual([]);
  });

  it('lifecycle events: a count, an enum and source "lifecycle" narrow the match', () => {
    const lapsed = bridgePattern({
      detailType: [DETAIL_TYPES.MemberInactive, DETAIL_TYPES.MemberReturned],
      detail: { inactiveDays: [{ numeric: ['>=', 30] }] },
    });
    expect(matchedTypes(toEventPatternJson(lapsed))).toEqual(['Member Inactive', 'Member Returned']);
    const corrections = bridgePattern({
      detailType: DETAIL_TYPES.MemberReturned,
      detail: { inactiveDays: [{ numeric: ['<', 30] }] },
    });
    expect(matchedTypes(toEventPatternJson(corrections))).toEqual([]);
    for (const [kind, matched] of [
      ['expiry', ['Membership Expiring']],
      ['minimumTerm', []],
    ] as const) {
      const expiring = bridgePattern({ detailType: 'Membership Expiring', detail: { kind: [kind] } });
      expect(matchedTypes(toEventPatternJson(expiring))).toEqual(matched);
    }
    const lifecycle = { source: [DEFAULT_EVENT_SOURCE], detail: { source: ['lifecycle'] } };
    expect(matchedTypes(lifecycle)).toEqual([
      'Member First Visit',
      'Member Inactive',
      'Member Returned',
      'Membership Expiring',
      'Payment Recovered',
      'Prospect Trial Ending',
    ]);
  });
});

describe('the stack example rules', () => {
  const stack = new Stack(new App(), 'Examples');
  const bus = new BridgeEventBus(stack, 'Events');
  new ExampleRules(stack, 'ExampleRules', { eventBus: bus });
  const template = Template.fromStack(stack);
  const patternOf = (prefix: string) => ruleByLogicalIdPrefix(template, `ExampleRules${prefix}`);

  it('synthesize exactly the hand-written patterns', () => {
    expect(patternOf('MarketingProspectsRule')).toEqual({
      source: ['gym-bridge'],
      'detail-type': ['Prospect Created', 'Prospect Status Changed'],
    });
    expect(patternOf('OperationsPaymentIssueRule')).toEqual({
      source: ['gym-bridge'],
      'detail-type': ['Member Status Changed'],
      detail: { status: ['PaymentIssue'] },
    });
    expect(patternOf('OperationsClubHealthRule')).toEqual({
      source: ['gym-bridge'],
      'detail-type': [
        'Club Credentials Rejected',
        'Club Data Stale',
        'Club Quota Low',
        'Club Source Unavailable',
      ],
    });
    // exampleEventPatterns (for consumers' own stacks) is the same pattern in CDK form.
    const cdkForm = exampleEventPatterns('gym-bridge');
    expect(toEventPatternJson(cdkForm.operationsPaymentIssue)).toEqual(
      patternOf('OperationsPaymentIssueRule'),
    );
    expect(toEventPatternJson(cdkForm.marketingProspects)).toEqual(patternOf('MarketingProspectsRule'));
    expect(toEventPatternJson(cdkForm.operationsClubHealth)).toEqual(patternOf('OperationsClubHealthRule'));
  });

  it('route the example events of their detail-types only', () => {
    expect(matchedTypes(patternOf('MarketingProspectsRule'))).toEqual([
      'Prospect Created',
      'Prospect Status Changed',
    ]);
    expect(matchedTypes(patternOf('OperationsClubHealthRule')).sort()).toEqual(
      [...EXAMPLE_SUBSCRIPTIONS.operationsClubHealth.detailType].sort(),
    );
    // The example Member Status Changed moves to PaymentIssue; the same event to Active does not match.
    expect(matchedTypes(patternOf('OperationsPaymentIssueRule'))).toEqual(['Member Status Changed']);
    const changed = toEventBridgeEvent(examples[DETAIL_TYPES.MemberStatusChanged], { source: 'gym-bridge' });
    expect(
      matchesEventPattern(patternOf('OperationsPaymentIssueRule'), {
        ...changed,
        detail: { ...changed.detail, status: 'Active' },
      }),
    ).toBe(false);
  });
});
