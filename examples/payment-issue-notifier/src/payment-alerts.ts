/**
 * The consumer's logic: parse an EventBridge event of the gym-bridge bus with Powertools Parser
 * (EventBridge envelope, detail schemas from `@gym-bridge/events`) and turn it into a payment alert
 * for the notifier.
 *
 * It handles what its subscription routes to it (../infra/payment-issue-notifier-stack.ts):
 * - Member Status Changed with `detail.status` = PaymentIssue;
 * - Payment Failed with `detail.reason` = dishonoured.
 *
 * Anything else is an error, never a silent skip: an invalid event, an event of another
 * detail-type, or one the pattern should have filtered out (the filter is written again in the
 * schemas below) throws `InvalidPaymentEventError`, so Lambda retries it and then sends it to the
 * function's dead-letter queue where someone looks at it.
 */
import { parse } from '@aws-lambda-powertools/parser';
import { EventBridgeEnvelope } from '@aws-lambda-powertools/parser/envelopes/eventbridge';
import { ParseError } from '@aws-lambda-powertools/parser/errors';
import {
  DETAIL_TYPES,
  EVENT_ID_PATTERN,
  MemberStatusChangedDetail,
  PaymentFailedDetail,
  type PaymentFailureReason,
} from '@gym-bridge/events';
import { z } from 'zod';
import type { Notifier, PaymentAlert } from './notifier';

/** The member status this consumer alerts on. */
export const PAYMENT_ISSUE_STATUS = 'PaymentIssue';
/** The payment failure reason this consumer alerts on (a declined payment is the member's own business). */
export const DISHONOURED: PaymentFailureReason = 'dishonoured';

/** The detail-types this consumer handles. */
export const HANDLED_DETAIL_TYPES = [DETAIL_TYPES.MemberStatusChanged, DETAIL_TYPES.PaymentFailed] as const;

/** Member Status Changed, to PaymentIssue only. */
export const PaymentIssueDetail = MemberStatusChangedDetail.extend({
  status: z.literal(PAYMENT_ISSUE_STATUS),
});
/** Payment Failed, dishonoured only. */
export const DishonouredPaymentDetail = PaymentFailedDetail.extend({ reason: z.literal('dishonoured') });

/** An event this consumer cannot handle. Paths and messages only: values may be personal data. */
export class InvalidPaymentEventError extends Error {
  override readonly name = 'InvalidPaymentEventError';
  constructor(
    message: string,
    readonly details: {
      readonly detailType?: string;
      readonly eventId?: string;
      /** `path: message` of each problem, e.g. `detail.status: Invalid input: expected "PaymentIssue"`. */
      readonly issues: readonly string[];
    },
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const fieldOf = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;

function eventIdOf(event: unknown): string | undefined {
  const id = fieldOf(fieldOf(event, 'detail'), 'eventId');
  return typeof id === 'string' && EVENT_ID_PATTERN.test(id) ? id : undefined;
}

/** Powertools' `parse` with the EventBridge envelope, its ParseError turned into a clear error. */
function parseDetail<T extends z.ZodType>(event: unknown, detailType: string, schema: T): z.output<T> {
  try {
    return parse(event, EventBridgeEnvelope, schema) as z.output<T>;
  } catch (err) {
    if (!(err instanceof ParseError)) throw err;
    const eventId = eventIdOf(event);
    const issues =
      err.cause instanceof z.ZodError
        ? err.cause.issues.map(
            (issue) => `${issue.path.map(String).join('.') || '(event)'}: ${issue.message}`,
          )
        : [err.message];
    throw new InvalidPaymentEventError(
      `invalid '${detailType}' event${eventId ? ` ${eventId}` : ''}: ${issues.slice(0, 5).join('; ')}`,
      { detailType, ...(eventId ? { eventId } : {}), issues },
      { cause: err },
    );
  }
}

/** Parses one event and returns its alert (throws InvalidPaymentEventError). */
export function toPaymentAlert(event: unknown): PaymentAlert {
  const detailType = fieldOf(event, 'detail-type');
  switch (detailType) {
    case DETAIL_TYPES.MemberStatusChanged: {
      const detail = parseDetail(event, detailType, PaymentIssueDetail);
      const memberNumber = detail.subject.memberNumber ?? '(unknown)';
      return {
        kind: 'member-payment-issue',
        eventId: detail.eventId,
        clubId: detail.clubId,
        memberNumber,
        previousStatus: detail.previousStatus,
        occurredAt: detail.occurredAt,
        text: `Club ${detail.clubId}: member ${memberNumber} moved from ${detail.previousStatus ?? 'no status'} to ${PAYMENT_ISSUE_STATUS}`,
      };
    }
    case DETAIL_TYPES.PaymentFailed: {
      const detail = parseDetail(event, detailType, DishonouredPaymentDetail);
      const memberNumber = detail.subject.memberNumber ?? '(unknown)';
      const amount = detail.amount === undefined ? '' : ` of ${detail.amount.toFixed(2)}`;
      return {
        kind: 'payment-dishonoured',
        eventId: detail.eventId,
        clubId: detail.clubId,
        memberNumber,
        paymentId: detail.paymentId,
        response: detail.response,
        ...(detail.amount === undefined ? {} : { amount: detail.amount }),
        occurredAt: detail.occurredAt,
        text: `Club ${detail.clubId}: payment ${detail.paymentId}${amount} of member ${memberNumber} was dishonoured (${detail.response})`,
      };
    }
    default: {
      const shown = typeof detailType === 'string' ? `'${detailType.slice(0, 80)}'` : 'none';
      throw new InvalidPaymentEventError(
        `unexpected detail-type ${shown}: this consumer handles ${HANDLED_DETAIL_TYPES.map((t) => `'${t}'`).join(' and ')} (check the rule's event pattern)`,
        {
          ...(typeof detailType === 'string' ? { detailType } : {}),
          issues: ['detail-type: not handled by this consumer'],
        },
      );
    }
  }
}

export type PaymentAlertHandler = (event: unknown) => Promise<PaymentAlert>;

/**
 * The Lambda handler, with its notifier injected. EventBridge invokes it once per event; the
 * returned alert is for tests and Lambda destinations.
 */
export function createHandler(deps: { readonly notifier: Notifier }): PaymentAlertHandler {
  return async (event) => {
    const alert = toPaymentAlert(event);
    await deps.notifier.notify(alert);
    return alert;
  };
}
