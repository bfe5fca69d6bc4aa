/**
 * Cross-check of the archive replay code (event-tooling/replay.ts, what `events replay --archive`
 * runs) against a second implementation of EventBridge: moto_server (Python, `pip install
 * "moto[server]"`), which has archives and replays. NOT part of `npm test` (which must not need
 * Python): run it by hand.
 *
 *   npx tsx test/moto/archive-replay-cross-check.ts               # starts moto_server itself
 *   MOTO_ENDPOINT=http://127.0.0.1:5000 npx tsx test/moto/archive-replay-cross-check.ts
 *
 * It creates a bus, an archive of it and two rules with SQS targets, publishes engine-made events
 * with EventBridgeSink, then: startArchiveReplay (archive by ARN, bus by name, one rule) and
 * watchReplay to COMPLETED; what the queues receive (`replay-name` on every replayed event);
 * the refusals (unknown archive, another bus, unknown rule, a name already used); CancelReplay.
 * Known differences of moto from AWS (seen with moto 5.2): it replays synchronously inside
 * StartReplay (COMPLETED at the first DescribeReplay, no RUNNING progress), it ignores
 * Destination.FilterArns and the window (every archived event goes to every rule), and it accepts
 * CancelReplay on a COMPLETED replay. The script reports those instead of failing on them.
 */
import assert from 'node:assert/strict';
import {
  CreateArchiveCommand,
  CreateEventBusCommand,
  PutRuleCommand,
  PutTargetsCommand,
  StartReplayCommand,
} from '@aws-sdk/client-eventbridge';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { sampleEvents } from '../../cli/sample-events';
import {
  describeArchive,
  findBusArchive,
  ReplayInputError,
  startArchiveReplay,
} from '../../event-tooling/replay';
import { formatProgress, watchReplay } from '../../event-tooling/replay-watch';
import { logger } from '../../lambdas/common/logger';
import type { BridgeEvent } from '../../lambdas/events/catalog';
import { EventBridgeSink } from '../../lambdas/events/publisher';
import { startMoto } from './moto-server';

logger.setLogLevel('SILENT');

const findings: string[] = [];
const note = (line: string) => {
  findings.push(line);
  process.stdout.write(`${line}\n`);
};

async function main(): Promise<void> {
  const moto = await startMoto();
  try {
    const { eventBridge: eb, sqs } = moto;
    const bus = `gym-bridge-check-${Date.now()}`;
    const { EventBusArn } = await eb.send(new CreateEventBusCommand({ Name: bus }));
    const { ArchiveArn } = await eb.send(
      new CreateArchiveCommand({
        ArchiveName: `${bus}-archive`,
        EventSourceArn: EventBusArn,
        RetentionDays: 30,
        EventPattern: JSON.stringify({ account: ['123456789012'] }),
      }),
    );
    assert.ok(EventBusArn && ArchiveArn);
    const queue = async (rule: string, detailType: string) => {
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `${bus}-${rule}` }));
      const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
      await eb.send(
        new PutRuleCommand({
          Name: rule,
          EventBusName: bus,
          EventPattern: JSON.stringify({ 'detail-type': [detailType] }),
        }),
      );
      await eb.send(
        new PutTargetsCommand({
          Rule: rule,
          EventBusName: bus,
          Targets: [{ Id: 'q', Arn: attrs.Attributes!.QueueArn! }],
        }),
      );
      return QueueUrl!;
    };
    const failedQueue = await queue('payment-failed', 'Payment Failed');
    const visitsQueue = await queue('visits', 'Member Visit Recorded');
    const drain = async (url: string) => {
      const bodies: Record<string, unknown>[] = [];
      for (;;) {
        const r = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }));
        if (!r.Messages?.length) return bodies;
        bodies.push(...r.Messages.map((m) => JSON.parse(m.Body!) as Record<string, unknown>));
      }
    };

    // Events of the real engine, moved into the last half hour (the archive keeps 30 days).
    const now = Date.now();
    const made = [
      ...(await sampleEvents({ detailType: 'Payment Failed', count: 4 })),
      ...(await sampleEvents({ detailType: 'Member Visit Recorded', count: 5 })),
    ];
    const events = made.map(
      (e, i) =>
        ({
          ...e,
          detail: { ...e.detail, occurredAt: new Date(now - 30 * 60_000 + i * 60_000).toISOString() },
        }) as BridgeEvent,
    );
    await new EventBridgeSink({ client: eb, busName: bus, source: 'gym-bridge' }).publish(events);
    const live = [await drain(failedQueue), await drain(visitsQueue)];
    assert.deepEqual(
      live.map((q) => q.length),
      [4, 5],
    );
    assert.ok(live.flat().every((e) => !('replay-name' in e)));
    const archive = await describeArchive(eb, ArchiveArn);
    note(
      `DescribeArchive by ARN: ${archive.name}, bus ${archive.eventSourceArn}, ${archive.eventCount} events, retention ${archive.retentionDays} days`,
    );
    assert.equal(archive.eventSourceArn, EventBusArn);
    assert.equal(archive.eventCount, 9);

    assert.equal(await findBusArchive(eb, bus), archive.name);
    note(`ListArchives by the bus ARN finds the bus's archive (--bus without --archive): ${archive.name}`);

    // The replay, limited to one rule; the window covers the events.
    const fromMs = now - 3_600_000;
    const toMs = now + 1000;
    const started = await startArchiveReplay(eb, {
      archive: ArchiveArn,
      fromMs,
      toMs,
      nowMs: now + 2000,
      bus,
      rules: ['payment-failed'],
    });
    note(
      `StartReplay accepted: ${started.name} (${started.state}), destination ${started.destinationArn}, FilterArns ${started.filterArns.join(', ')}`,
    );
    const states: string[] = [];
    const result = await watchReplay(eb, started.name, {
      fromMs,
      toMs,
      intervalMs: 200,
      onProgress: (p) => states.push(formatProgress(p).trim()),
    });
    note(`DescribeReplay states: ${states.join(' | ')}`);
    assert.equal(result.state, 'COMPLETED');
    const replayed = [await drain(failedQueue), await drain(visitsQueue)];
    assert.equal(replayed[0]!.length, 4, 'the filtered rule receives every archived Payment Failed');
    assert.ok(
      replayed.flat().every((e) => e['replay-name'] === started.name),
      'every replayed event carries replay-name',
    );
    const replayedIds = replayed[0]!.map((e) => (e.detail as { eventId: string }).eventId).sort();
    assert.deepEqual(replayedIds, live[0]!.map((e) => (e.detail as { eventId: string }).eventId).sort());
    note(
      `replayed to the payment-failed rule: ${replayed[0]!.length} events, each with "replay-name": "${started.name}", detail.eventId unchanged`,
    );
    if (replayed[1]!.length > 0)
      note(
        `moto difference: the visits rule (not in FilterArns) also received ${replayed[1]!.length} replayed events: moto ignores Destination.FilterArns (AWS limits the replay to those rules)`,
      );

    // Refusals: the same messages as the CLI gives (exit 2), before any StartReplay.
    const refusals: [string, Parameters<typeof startArchiveReplay>[1]][] = [
      ['unknown archive', { archive: 'no-such-archive', fromMs, toMs, nowMs: now + 2000 }],
      ['another bus', { archive: ArchiveArn, bus: 'default', fromMs, toMs, nowMs: now + 2000 }],
      ['unknown rule', { archive: ArchiveArn, rules: ['typo'], fromMs, toMs, nowMs: now + 2000 }],
    ];
    for (const [what, request] of refusals) {
      await assert.rejects(startArchiveReplay(eb, request), ReplayInputError);
      note(`refused before StartReplay (${what}): ReplayInputError`);
    }
    // The service agrees that another bus cannot be the destination (what the client-side check says).
    await assert.rejects(
      eb.send(
        new StartReplayCommand({
          ReplayName: `${started.name}-x`,
          EventSourceArn: ArchiveArn,
          EventStartTime: new Date(fromMs),
          EventEndTime: new Date(toMs),
          Destination: { Arn: EventBusArn.replace(/event-bus\/.*$/, 'event-bus/default') },
        }),
      ),
      (err: Error) => {
        note(`StartReplay to another bus, sent anyway: ${err.name}: ${err.message}`);
        return err.name === 'ValidationException';
      },
    );
    await assert.rejects(
      startArchiveReplay(eb, { archive: ArchiveArn, fromMs, toMs, nowMs: now + 2000, name: started.name }),
      (err: Error) => err.name === 'ResourceAlreadyExistsException',
    );
    note('a replay name used before: ResourceAlreadyExistsException from StartReplay (exit 1 in the CLI)');

    // Cancel.
    const second = await startArchiveReplay(eb, { archive: ArchiveArn, fromMs, toMs, nowMs: now + 2000 });
    const cancel = new AbortController();
    cancel.abort();
    const cancels: string[] = [];
    const cancelled = await watchReplay(eb, second.name, {
      fromMs,
      toMs,
      intervalMs: 200,
      cancel: cancel.signal,
      onCancel: (c) => cancels.push(c.sent ? `sent (${c.state})` : `refused: ${c.error}`),
    });
    note(`CancelReplay: ${cancels.join(', ')}; final state ${cancelled.state}`);
    if (cancelled.state === 'CANCELLED')
      note(
        'moto difference: it cancels a replay it has already completed (AWS answers IllegalStatusException)',
      );
    note('cross-check passed');
  } finally {
    moto.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(
    `cross-check failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exitCode = 1;
});
