/**
 * The dispatch handler reads its shard and its period's start from the schedule's input, and
 * refuses an input it cannot trust, naming the field; its runtime reads the spread from the
 * environment.
 */
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { type ClubRecord, MemoryClubRegistry } from '../../../lambdas/clubs';
import { clubPhaseSeconds, clubShardIndex } from '../../../lambdas/common/club-shard';
import { ENV } from '../../../lambdas/common/deployment-contract';
import { createMetrics } from '../../../lambdas/common/metrics';
import type { PollQueueEntry } from '../../../lambdas/common/poll-queue';
import { DispatchEventError } from '../../../lambdas/engine/dispatch/dispatch-input';
import { createDispatchHandler } from '../../../lambdas/handlers/dispatch-handler';
import { type DispatchRuntime, spreadSecondsEnv } from '../../../lambdas/handlers/dispatch-runtime';
import { InvalidEnvironmentError } from '../../../lambdas/handlers/runtime-env';
import { MemoryStateStore } from '../../../lambdas/state';

const club = (clubId: string): ClubRecord => ({
  clubId,
  baseUrl: 'https://api.example.com/v1',
  timeZone: 'Europe/London',
  plan: 'basic',
  enabled: true,
  secretName: `gym-bridge/clubs/${clubId}`,
});
const ids = Array.from({ length: 60 }, (_, i) => `club-${String(i).padStart(2, '0')}`);

const context = {
  awsRequestId: 'req-1',
  functionName: 'dispatch',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:dispatch',
  memoryLimitInMB: '256',
  logGroupName: '/aws/lambda/dispatch',
  logStreamName: 'local',
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => 50_000,
  done: () => {},
  fail: () => {},
  succeed: () => {},
} as Context;

function dispatcher() {
  const sent: PollQueueEntry[] = [];
  const rt: DispatchRuntime = {
    registry: new MemoryClubRegistry(ids.map(club)),
    store: new MemoryStateStore(),
    queue: {
      async sendBatch(entries) {
        sent.push(...entries);
      },
    },
    reserve: 0.1,
    overdueMinimumMs: 15 * 60_000,
    spreadSeconds: 60,
    metrics: createMetrics({ serviceName: 'test' }),
  };
  return { handler: createDispatchHandler(rt), sent };
}

describe('dispatch handler', () => {
  it("dispatches the shard its schedule names, each club at its second after the schedule's time", async () => {
    // Prepare: the scheduled time a few seconds before the run (Scheduler's and Lambda's latency).
    const { handler, sent } = dispatcher();
    const scheduledMs = Math.floor(Date.now() / 60_000) * 60_000 + 60_000;
    const scheduledAt = new Date(scheduledMs).toISOString();
    // Act
    const summary = await handler({ shard: 1, shards: 3, scheduledAt }, context);
    // Assess
    const expected = ids.filter((id) => clubShardIndex(id, 3) === 1);
    expect(sent.map((e) => e.message.clubId).sort()).toEqual(expected);
    expect(summary.messages).toBe(expected.length);
    for (const { message, notBeforeMs } of sent) {
      expect(notBeforeMs).toBe(scheduledMs + clubPhaseSeconds(message.clubId, 60) * 1000);
    }
  });

  it('dispatches every club for an empty event (a run by hand)', async () => {
    const { handler, sent } = dispatcher();
    await handler({}, context);
    expect(sent).toHaveLength(ids.length);
  });

  it.each([
    [{ shard: 3, shards: 3 }, /shard: shard must be below shards/],
    [{ shard: 0 }, /shards: shard and shards go together/],
    [{ shard: 0, shards: 65 }, /shards: Too big/i],
    [{ shard: -1, shards: 2 }, /shard: Too small/i],
    [{ shard: 0, shards: 2, scheduledAt: 'yesterday' }, /scheduledAt: /],
    [{ shard: 0, shards: 2, shardz: 1 }, /shardz/],
    ['run', /\(event\)/],
  ])('refuses %o, naming the field, and queues nothing', async (event, problem) => {
    const { handler, sent } = dispatcher();
    const run = handler(event, context);
    await expect(run).rejects.toBeInstanceOf(DispatchEventError);
    await expect(handler(event, context)).rejects.toThrow(problem);
    expect(sent).toEqual([]);
  });
});

describe('dispatch runtime', () => {
  it('reads the spread from DISPATCH_SPREAD_SECONDS: none when unset, whole seconds up to 900', () => {
    expect(spreadSecondsEnv({})).toBe(0);
    expect(spreadSecondsEnv({ [ENV.dispatchSpreadSeconds]: '60' })).toBe(60);
    expect(() => spreadSecondsEnv({ [ENV.dispatchSpreadSeconds]: '901' })).toThrow(InvalidEnvironmentError);
    expect(() => spreadSecondsEnv({ [ENV.dispatchSpreadSeconds]: '1.5' })).toThrow(
      /DISPATCH_SPREAD_SECONDS is '1.5': it must hold the seconds .* 0\.\.900/,
    );
  });
});
