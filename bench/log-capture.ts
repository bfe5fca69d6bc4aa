/**
 * Measures the bytes of the poll Lambda's INFO logs: the poll handler's own `logReport` per club
 * poll (one `club polled` line at INFO; the DEBUG lines are not written at INFO), through a
 * Powertools logger with the Lambda context keys it carries in production, written into a counter
 * instead of stdout. The platform's START/END/REPORT lines are the cost model's (per invocation).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { ClubReport } from '../lambdas/engine/poll-club';
import { logReport } from '../lambdas/engine/poll-message/report-log';

export class LogCapture {
  bytes = 0;
  lines = 0;
  readonly #logger: Logger;

  constructor() {
    this.#logger = this.#captured(new Logger({ serviceName: 'gym-bridge-prod', logLevel: 'INFO' }));
    // What injectLambdaContext adds to every line in Lambda (values of production length).
    this.#logger.appendKeys({
      cold_start: false,
      function_arn:
        'arn:aws:lambda:us-east-1:123456789012:function:GymBridge-prod-PollerPollFunction1A2B3C4D-AbCdEfGhIjKl',
      function_memory_size: '1024',
      function_name: 'GymBridge-prod-PollerPollFunction1A2B3C4D-AbCdEfGhIjKl',
      function_request_id: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
      xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793',
    });
  }

  /** Points the logger's console (each child has its own) at the counter. */
  #captured(logger: Logger): Logger {
    (logger as unknown as { console: Record<string, (line: string) => void> }).console = Object.fromEntries(
      ['log', 'info', 'warn', 'error', 'debug', 'trace'].map((level) => [
        level,
        (line: string) => this.#count(line),
      ]),
    );
    return logger;
  }

  #count(line: string): void {
    this.bytes += Buffer.byteLength(line, 'utf8') + 1;
    this.lines++;
  }

  /** The poll handler's log lines for one club poll: its own `logReport` (lambdas/engine/poll-message/report-log.ts). */
  poll(report: ClubReport, messageId: string): void {
    const log = this.#captured(
      this.#logger.createChild({ persistentKeys: { clubId: report.clubId, messageId } }),
    );
    logReport(log as unknown as Parameters<typeof logReport>[0], report, Date.now());
  }
}
