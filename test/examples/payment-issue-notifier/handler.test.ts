/**
 * The example consumer's handler on single events: the bridge's example events as EventBridge
 * delivers them (through the publisher's own toEntry), valid and broken. The end-to-end test
 * (e2e.test.ts) runs it on what the real engine published.
 */
import { DETAIL_TYPES } from '@gym-bridge/events';
import { describe, expect, it } from 'vitest';
import { exampleEvents } from '../../../event-tooling/examples';
import {
  logNotifier,
  MemoryNotifier,
  type Notifier,
} from '../../../examples/payment-issue-notifier/src/notifier';
import {
  createHandler,
  InvalidPaymentEventError,
  toPaymentAlert,
} from '../../../examples/payment-issue-notifier/src/payment-alerts';
import { deliveredEvent } from '../../unit/events/eventbridge-delivery';

const examples = exampleEvents();
const paymentIssue = () => deliveredEvent(examples[DETAIL_TYPES.MemberStatusChanged]);
const dishonoured = () => deliveredEvent(examples[DETAIL_TYPES.PaymentFailed]);

/** Runs the handler on an event that must be refused; returns the error and what was notified. */
async function refused(event: unknown) {
  const notifier = new MemoryNotifier();
  const error = await createHandler({ notifier })(event).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidPaymentEventError);
  return { error: error as InvalidPaymentEventError, alerts: notifier.alerts };
}

describe('payment-issue-notifier handler', () => {
  it('turns Member Status Changed to PaymentIssue into a member-payment-issue alert', async () => {
    const event = paymentIssue();
    const notifier = new MemoryNotifier();
    const alert = await createHandler({ notifier })(event);
    const detail = examples[DETAIL_TYPES.MemberStatusChanged].detail;
    expect(alert).toEqual({
      kind: 'member-payment-issue',
      eventId: detail.eventId,
      clubId: detail.clubId,
      memberNumber: 'M10042',
      previousStatus: 'Active',
      occurredAt: detail.occurredAt,
      text: `Club ${detail.clubId}: member M10042 moved from Active to PaymentIssue`,
    });
    expect(notifier.alerts).toEqual([alert]);
  });

  it('turns a dishonoured Payment Failed into a payment-dishonoured alert', async () => {
    const notifier = new MemoryNotifier();
    const alert = await createHandler({ notifier })(dishonoured());
    const detail = examples[DETAIL_TYPES.PaymentFailed].detail as { paymentId: string; response: string };
    expect(alert).toMatchObject({ kind: 'payment-dishonoured', paymentId: detail.paymentId });
    expect(alert.kind === 'payment-dishonoured' && alert.response).toBe(detail.response);
    expect(notifier.alerts).toEqual([alert]);
  });

  it('tolerates a field added within the event version', async () => {
    const event = paymentIssue();
    event.detail.addedLater = { any: 'thing' };
    expect((await createHandler({ notifier: new MemoryNotifier() })(event)).kind).toBe(
      'member-payment-issue',
    );
  });

  it('handles an event replayed from the archive (replay-name) like the original', async () => {
    const original = paymentIssue();
    const replayed = { ...original, 'replay-name': 'payment-issues-2026-03' };
    const handler = createHandler({ notifier: new MemoryNotifier() });
    expect(await handler(replayed)).toEqual(await handler(original));
  });

  it('refuses a status change to another status (the pattern should have filtered it), naming the field', async () => {
    const event = paymentIssue();
    event.detail.status = 'Active';
    const { error, alerts } = await refused(event);
    expect(alerts).toEqual([]);
    expect(error.details.issues).toEqual([expect.stringMatching(/^detail\.status: .*PaymentIssue/)]);
    expect(error.message).toContain("invalid 'Member Status Changed' event ");
    expect(error.message).toContain(examples[DETAIL_TYPES.MemberStatusChanged].detail.eventId);
  });

  it('refuses a declined payment', async () => {
    const event = dishonoured();
    event.detail.reason = 'declined';
    const { error, alerts } = await refused(event);
    expect(alerts).toEqual([]);
    expect(error.details.issues).toEqual([expect.stringMatching(/^detail\.reason: /)]);
  });

  it('refuses a detail missing a required field, by its path, without its values', async () => {
    const event = paymentIssue();
    delete event.detail.clubId;
    event.detail.previousStatus = 42;
    const { error } = await refused(event);
    expect(error.details.issues.map((i) => i.split(':')[0])).toEqual([
      'detail.clubId',
      'detail.previousStatus',
    ]);
    // No value of the event in the message (they may be personal data).
    const { data } = examples[DETAIL_TYPES.MemberStatusChanged].detail as { data: Record<string, unknown> };
    for (const value of [data.FirstName, data.LastName, '42'].filter((v) => typeof v === 'string')) {
      expect(error.message).not.toContain(value);
    }
  });

  it('refuses an event of another eventVersion', async () => {
    const event = paymentIssue();
    event.detail.eventVersion = 2;
    const { error } = await refused(event);
    expect(error.details.issues).toEqual([expect.stringMatching(/^detail\.eventVersion: /)]);
  });

  it('refuses an event whose EventBridge envelope is broken', async () => {
    const event = paymentIssue() as Partial<ReturnType<typeof paymentIssue>>;
    delete event.account;
    const { error } = await refused(event);
    expect(error.details.issues).toEqual([expect.stringMatching(/^account: /)]);
  });

  it('refuses another detail-type and anything that is not an event', async () => {
    const joined = await refused(deliveredEvent(examples[DETAIL_TYPES.MemberJoined]));
    expect(joined.error.message).toMatch(/^unexpected detail-type 'Member Joined': this consumer handles/);
    expect(joined.error.details.detailType).toBe('Member Joined');
    for (const notAnEvent of [undefined, null, 'text', 42, [], {}]) {
      expect((await refused(notAnEvent)).error.message).toMatch(/^unexpected detail-type none/);
    }
  });

  it('lets a notifier failure through (the event is retried, not lost)', async () => {
    const failing: Notifier = { notify: () => Promise.reject(new Error('SNS unavailable')) };
    await expect(createHandler({ notifier: failing })(paymentIssue())).rejects.toThrow('SNS unavailable');
  });

  it('the default notifier logs one structured line per alert', async () => {
    const lines: unknown[][] = [];
    const alert = toPaymentAlert(paymentIssue());
    await logNotifier({ info: (...args) => lines.push(args) }).notify(alert);
    expect(lines).toEqual([['payment alert', { alert }]]);
  });
});
