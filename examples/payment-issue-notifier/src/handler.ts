/**
 * Lambda entry of the payment-issue notifier (bundled by the stack's NodejsFunction): the handler
 * of ./payment-alerts.ts with the default notifier, one structured log line per alert. The logger
 * is created once, at cold start.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { logNotifier } from './notifier';
import { createHandler } from './payment-alerts';

const logger = new Logger({ serviceName: 'payment-issue-notifier' });

export const handler = createHandler({ notifier: logNotifier(logger) });
