/**
 * The notifier port: where a payment alert goes. The handler depends on this interface only, so a
 * test records alerts in memory and a deployment picks its channel (a log line by default; SNS,
 * Slack or a ticket system behind the same interface).
 */

/** A member whose status moved to PaymentIssue. */
export interface MemberPaymentIssueAlert {
  readonly kind: 'member-payment-issue';
  /** `detail.eventId`: the same change always has the same id; de-duplicate on it. */
  readonly eventId: string;
  readonly clubId: string;
  readonly memberNumber: string;
  /** The status before (null when the member had none). */
  readonly previousStatus: string | null;
  /** When the bridge's source saw the change happen, UTC. */
  readonly occurredAt: string;
  /** One line for a human. */
  readonly text: string;
}

/** A direct debit that had been taken came back dishonoured. */
export interface PaymentDishonouredAlert {
  readonly kind: 'payment-dishonoured';
  readonly eventId: string;
  readonly clubId: string;
  readonly memberNumber: string;
  /** Payment history id (int64 as a decimal string). */
  readonly paymentId: string;
  /** The bank's response, e.g. "Dishonoured - Account Closed". */
  readonly response: string;
  /** The amount, when the payment had a fee breakdown. */
  readonly amount?: number;
  readonly occurredAt: string;
  readonly text: string;
}

export type PaymentAlert = MemberPaymentIssueAlert | PaymentDishonouredAlert;

export interface Notifier {
  notify(alert: PaymentAlert): Promise<void>;
}

/** What the log notifier needs of a logger: Powertools Logger's `info`. */
export interface AlertLogger {
  info(message: string, ...extra: Record<string, unknown>[]): void;
}

/**
 * The default notifier: one structured log line per alert (`{"level":"INFO","message":"payment
 * alert","alert":{...}}` with Powertools Logger), which Lambda sends to CloudWatch Logs: query it
 * with Logs Insights, or put a metric filter and an alarm on it. No personal data beyond the
 * member number.
 */
export function logNotifier(logger: AlertLogger): Notifier {
  return {
    notify: async (alert) => {
      logger.info('payment alert', { alert });
    },
  };
}

/** Keeps the alerts in memory, for tests. */
export class MemoryNotifier implements Notifier {
  readonly alerts: PaymentAlert[] = [];
  async notify(alert: PaymentAlert): Promise<void> {
    this.alerts.push(alert);
  }
}
