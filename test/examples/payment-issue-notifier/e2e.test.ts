/**
 * The consumer example end to end, locally: the real engine polls the API sandbox and publishes
 * through the real EventBridgeSink to the local EventBridge endpoint; each event the bus accepted,
 * in the form a rule target receives it, is routed by the offline EventBridge matcher
 * (`matchesEventPattern` from `@gym-bridge/events`) with the event patterns of the example
 * stack's typed subscriptions (the same objects its rules get, checked against the synthesized
 * template), and each routed event is parsed and handled by the example's handler.
 *
 * The alerts must be exactly the sandbox journal's transitions to PaymentIssue and its dishonoured
 * payments in the polled span (as polling sees them: test/support/ground-truth.ts), and every
 * event not routed must be one the handler would refuse.
 */

import { type EventPatternJson, matchesEventPattern } from '@gym-bridge/events';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { PaymentIssueNotifierStack } from '../../../examples/payment-issue-notifier/infra/payment-issue-notifier-stack';
import { MemoryNotifier, type PaymentAlert } from '../../../examples/payment-issue-notifier/src/notifier';
import {
  createHandler,
  InvalidPaymentEventError,
  toPaymentAlert,
} from '../../../examples/payment-issue-notifier/src/payment-alerts';
import { toEventPatternJson } from '../../../lib/constructs/bridge-subscription';
import { PAYMENT_RESPONSES } from '../../../sandbox';
import { expectedKeys } from '../../support/ground-truth';
import { type DeliveredEvent, type EngineRun, EVENT_SOURCE, runEngine } from './engine-run';

const HOUR = 3_600_000;

/**
 * The event pattern of every subscription of the example stack (the typed construct's own
 * object, in EventBridge's JSON form), checked to be what the synthesized rules give EventBridge.
 * No bundling: patterns only.
 */
function rulePatterns(eventSource: string): EventPatternJson[] {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new PaymentIssueNotifierStack(app, 'PaymentIssueNotifier', {
    eventBusArn: 'arn:aws:events:eu-west-1:123456789012:event-bus/gym-bridge',
    eventSource,
  });
  const patterns = stack.subscriptions.map((subscription) => toEventPatternJson(subscription.pattern));
  const synthesized = Object.values(Template.fromStack(stack).findResources('AWS::Events::Rule')).map(
    (rule) => rule.Properties.EventPattern as EventPatternJson,
  );
  const byJson = (a: EventPatternJson, b: EventPatternJson) =>
    JSON.stringify(a).localeCompare(JSON.stringify(b));
  expect([...synthesized].sort(byJson)).toEqual([...patterns].sort(byJson));
  return patterns;
}

/** The journal key (test/support/ground-truth.ts) an alert stands for. */
function alertKey(alert: PaymentAlert): string {
  return alert.kind === 'member-payment-issue'
    ? `MSC|${alert.clubId}|${alert.memberNumber}|${alert.previousStatus}|PaymentIssue`
    : `PAY|${alert.clubId}|${alert.paymentId}|failed|${alert.response}`;
}

const DISHONOURED_RESPONSES: readonly string[] = PAYMENT_RESPONSES.dishonoured;

/** The journal's changes this consumer must be told about, as polling sees them. */
function expectedAlertKeys(run: EngineRun): string[] {
  const keys: string[] = [];
  for (const [key, count] of expectedKeys(run.journal, run.boundaries)) {
    const parts = key.split('|');
    const paymentIssue = parts[0] === 'MSC' && parts[4] === 'PaymentIssue';
    const dishonoured =
      parts[0] === 'PAY' && parts[3] === 'failed' && DISHONOURED_RESPONSES.includes(parts[4]!);
    if (paymentIssue || dishonoured) for (let i = 0; i < count; i++) keys.push(key);
  }
  return keys.sort();
}

const detailOf = (event: DeliveredEvent) => event.detail as Record<string, unknown>;

describe('payment-issue-notifier end to end: engine -> local EventBridge -> rule patterns -> handler', () => {
  let run: EngineRun;
  let patterns: EventPatternJson[];
  beforeAll(async () => {
    // Two clubs of 400 members, polled every 4 simulated hours for 4 days: direct-debit runs with
    // declines and later dishonours, members moving to and from PaymentIssue, joins, suspensions.
    run = await runEngine({
      sandbox: {
        seed: 1,
        clubs: 2,
        members: 400,
        historyDays: 2,
        startTime: '2026-03-02T09:00:00Z',
        activityScale: 1,
      },
      rounds: 24,
      stepMs: 4 * HOUR,
    });
    patterns = rulePatterns(EVENT_SOURCE);
  }, 120_000);

  it('alerts exactly on the journal’s transitions to PaymentIssue and its dishonoured payments', async () => {
    expect(run.baselineEvents).toBe(0);
    expect(patterns).toHaveLength(2);

    // EventBridge: each rule delivers each event its pattern matches to the function.
    const notifier = new MemoryNotifier();
    const handler = createHandler({ notifier });
    const routed: DeliveredEvent[] = [];
    for (const pattern of patterns) {
      for (const event of run.delivered) {
        if (!matchesEventPattern(pattern, event)) continue;
        routed.push(event);
        await handler(event); // an event the handler refuses fails the test here
      }
    }

    const expected = expectedAlertKeys(run);
    const actual = notifier.alerts.map(alertKey).sort();
    expect(actual).toEqual(expected);
    // Enough of both kinds for the comparison to mean something.
    const paymentIssues = notifier.alerts.filter((a) => a.kind === 'member-payment-issue').length;
    const dishonours = notifier.alerts.filter((a) => a.kind === 'payment-dishonoured').length;
    expect(paymentIssues).toBeGreaterThanOrEqual(8);
    expect(dishonours).toBeGreaterThanOrEqual(3);
    // One alert per routed event, each event once.
    const ids = notifier.alerts.map((a) => a.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(routed.map((e) => detailOf(e).eventId));
    console.info(
      `e2e: ${run.delivered.length} events on the bus, ${routed.length} routed (${paymentIssues} PaymentIssue, ${dishonours} dishonoured), journal span ${run.journal.length} entries`,
    );
  });

  it('does not route anything else, and the handler would refuse each of those events', () => {
    const notRouted = run.delivered.filter((e) => !patterns.some((p) => matchesEventPattern(p, e)));
    const kinds = (type: string, field: string, value: unknown, equal: boolean) =>
      notRouted.filter((e) => e['detail-type'] === type && (detailOf(e)[field] === value) === equal).length;
    // Near misses are on the bus and stay there: the same detail-types with other values.
    expect(kinds('Member Status Changed', 'status', 'PaymentIssue', false)).toBeGreaterThan(10);
    expect(kinds('Payment Failed', 'reason', 'declined', true)).toBeGreaterThan(5);
    expect(kinds('Member Status Changed', 'status', 'PaymentIssue', true)).toBe(0);
    expect(kinds('Payment Failed', 'reason', 'dishonoured', true)).toBe(0);
    const otherTypes = new Set(notRouted.map((e) => e['detail-type']));
    for (const type of ['Payment Succeeded', 'Member Joined', 'Membership Cancelled'])
      expect(otherTypes).toContain(type);
    // The patterns and the handler's schemas agree on every event the engine published.
    for (const event of notRouted) {
      expect(() => toPaymentAlert(event), `${event['detail-type']} ${detailOf(event).eventId}`).toThrow(
        InvalidPaymentEventError,
      );
    }
    expect(notRouted.length).toBeGreaterThan(250);
  });

  it('the source and the eventVersion are part of the patterns', () => {
    // Another deployment's rules (its own event source) route none of these events.
    const staging = rulePatterns('gym-bridge-staging');
    expect(run.delivered.filter((e) => staging.some((p) => matchesEventPattern(p, e)))).toEqual([]);
    // The same events as a next eventVersion would publish them are not routed either.
    const routed = run.delivered.filter((e) => patterns.some((p) => matchesEventPattern(p, e)));
    expect(routed.length).toBeGreaterThan(0);
    const nextVersion = routed.map((e) => ({ ...e, detail: { ...detailOf(e), eventVersion: 2 } }));
    expect(nextVersion.filter((e) => patterns.some((p) => matchesEventPattern(p, e)))).toEqual([]);
  });
});
