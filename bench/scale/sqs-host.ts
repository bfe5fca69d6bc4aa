/**
 * The scale bench's SQS-compatible endpoint (sqs-endpoint.ts) in its own process, so the
 * dispatcher's CPU is measured apart from the server's (as the store's is: bench/hosts/). Run by
 * the bench, never on its own.
 */
import { serveHost } from '../hosts/rpc';
import { type SqsEndpoint, startSqsEndpoint } from './sqs-endpoint';

let sqs: SqsEndpoint | undefined;

const started = (): SqsEndpoint => {
  if (!sqs) throw new Error('the SQS endpoint is not started');
  return sqs;
};

serveHost({
  async start() {
    sqs ??= await startSqsEndpoint();
    return { endpoint: sqs.endpoint, queueUrl: sqs.queueUrl };
  },
  stats: () => started().stats(),
  reset: () => {
    started().reset();
    return true;
  },
  failNextEntries: (count: number) => {
    started().failNextEntries(count);
    return true;
  },
  cpu: () => process.cpuUsage(),
  async close() {
    await sqs?.close();
    sqs = undefined;
    return true;
  },
});
