/**
 * The README's "test with sample events" step, as a consumer runs it: the CLI's
 * `events sample --type ...` (a child process; the real engine against an in-process sandbox)
 * prints events as the Lambda receives them, and the example's handler takes exactly those its
 * subscription routes to it and refuses the others.
 */
import { describe, expect, it } from 'vitest';
import { MemoryNotifier } from '../../../examples/payment-issue-notifier/src/notifier';
import { createHandler } from '../../../examples/payment-issue-notifier/src/payment-alerts';
import { spawnCli } from '../../support/cli-process';

async function sample(type: string, count: number): Promise<Record<string, unknown>[]> {
  const cli = spawnCli(['events', 'sample', '--type', type, '--count', String(count)]);
  expect(await cli.exit, cli.stderr()).toBe(0);
  return cli
    .stdout()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const detailOf = (event: Record<string, unknown>) => event.detail as Record<string, unknown>;

describe('the example handler on `events sample` output', () => {
  it('alerts on PaymentIssue status changes and dishonoured payments, refuses the rest', async () => {
    const [statusChanges, paymentFailures] = await Promise.all([
      sample('Member Status Changed', 40),
      sample('Payment Failed', 20),
    ]);
    expect(statusChanges).toHaveLength(40);
    expect(paymentFailures).toHaveLength(20);
    const wanted = (e: Record<string, unknown>) =>
      detailOf(e).status === 'PaymentIssue' || detailOf(e).reason === 'dishonoured';

    const notifier = new MemoryNotifier();
    const handler = createHandler({ notifier });
    const accepted: Record<string, unknown>[] = [];
    const refused: Record<string, unknown>[] = [];
    for (const event of [...statusChanges, ...paymentFailures]) {
      await handler(event).then(
        () => accepted.push(event),
        () => refused.push(event),
      );
    }
    // Both kinds of each are in the sample, so the test can tell a filter from no filter.
    expect(accepted.filter((e) => e['detail-type'] === 'Member Status Changed').length).toBeGreaterThan(0);
    expect(accepted.filter((e) => e['detail-type'] === 'Payment Failed').length).toBeGreaterThan(0);
    expect(refused.filter((e) => e['detail-type'] === 'Member Status Changed').length).toBeGreaterThan(0);
    expect(refused.filter((e) => e['detail-type'] === 'Payment Failed').length).toBeGreaterThan(0);
    expect(accepted).toEqual([...statusChanges, ...paymentFailures].filter(wanted));
    expect(notifier.alerts.map((a) => a.eventId)).toEqual(accepted.map((e) => detailOf(e).eventId));
  }, 90_000);
});
