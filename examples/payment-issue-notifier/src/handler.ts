/**
 * Lambda entry of the payment-issue notifier (bundled by the stack's NodejsFunction): the handler
 * of ./payment-alerts.ts with the default notifier, one structured log line per alert.
 */
import { logNotifier } from './notifier';
import { createHandler } from './payment-alerts';

export const handler = createHandler({ notifier: logNotifier() });
