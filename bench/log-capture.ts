/**
 * Measures the bytes of the poll Lambda's INFO logs, written by the runtime's own logger and
 * functions into a counter instead of stdout: per club poll its `club polled` line (`logReport`;
 * the DEBUG lines are not written at INFO), with the request id the poll handler puts on every
 * line, and its share of the invocation's `poll batch done` line, which carries the whole Lambda
 * context (InvocationLog, with values of production length) for a batch of the deployed batch
 * size. The platform's START/END/REPORT lines are the cost model's (per invocation).
 */
import { type BridgeLogger, InvocationLog, type LogOutput, logger } from '../lambdas/common/logger';
import type { ClubReport } from '../lambdas/engine/club-poll/poll-club';
import {
  batchFields,
  logReport,
  POLL_BATCH_MESSAGE,
  type PollFigures,
} from '../lambdas/engine/poll-message/report-log';

/** What Lambda gives a production poll invocation (values of production length). */
const CONTEXT = {
  awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
  functionName: 'GymBridge-prod-PollerPollFunction1A2B3C4D-AbCdEfGhIjKl',
  functionVersion: '$LATEST',
  invokedFunctionArn:
    'arn:aws:lambda:us-east-1:123456789012:function:GymBridge-prod-PollerPollFunction1A2B3C4D-AbCdEfGhIjKl',
  memoryLimitInMB: '256',
} as Parameters<InvocationLog['start']>[0];
const TRACE_HEADER = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=557abcec3ee5a047;Sampled=0';

export class LogCapture {
  /** INFO bytes: each poll's line and its share of its invocation's line. */
  bytes = 0;
  /** Lines, counted the same way (an invocation's line is 1 / batch size of one per poll). */
  lines = 0;
  readonly #root: BridgeLogger;
  readonly #invocation: InvocationLog;

  /** `batchSize`: the clubs an invocation polls (the deployed event source batch size). */
  constructor(readonly batchSize = 1) {
    if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
      throw new RangeError(`batchSize must be a whole number >= 1, got ${batchSize}`);
    }
    this.#root = logger.createChild({
      serviceName: 'gym-bridge-prod',
      logLevel: 'INFO',
      output: this.#counter(1),
    });
    const contextLog = this.#root.createChild({ output: this.#counter(1 / batchSize) });
    this.#invocation = new InvocationLog(this.#root, contextLog);
  }

  /** A logger output that counts each line (and its newline) as `share` of a line. */
  #counter(share: number): LogOutput {
    return {
      log: (line: string) => {
        this.bytes += (Buffer.byteLength(line, 'utf8') + 1) * share;
        this.lines += share;
      },
    };
  }

  /** The poll Lambda's INFO lines for one club poll, as the poll handler writes them. */
  poll(report: ClubReport, poll: PollFigures & { readonly messageId: string }): void {
    const saved = process.env._X_AMZN_TRACE_ID;
    process.env._X_AMZN_TRACE_ID = TRACE_HEADER;
    try {
      this.#invocation.start(CONTEXT);
      const persistentKeys = { clubId: report.clubId, messageId: poll.messageId };
      logReport(this.#root.createChild({ persistentKeys }), report, poll);
      this.#invocation.end(POLL_BATCH_MESSAGE, batchFields(Array(this.batchSize).fill('polled')));
    } finally {
      if (saved === undefined) delete process.env._X_AMZN_TRACE_ID;
      else process.env._X_AMZN_TRACE_ID = saved;
    }
  }
}
