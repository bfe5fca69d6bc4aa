/**
 * The dispatch Lambda's event: a schedule's input (`DispatchInput` of the deployment contract),
 * validated with zod. A bad event fails the run with a message naming the field, instead of
 * dispatching the wrong clubs; an empty event (a run by hand) dispatches every club.
 */
import { z } from 'zod';
import { CLUB_DIRECTORY_BUCKETS, type DispatchShard, WHOLE_FLEET } from '../../common/club-shard';
import type { DispatchInput } from '../../common/deployment-contract';

const DispatchInputSchema = z
  .object({
    shard: z.number().int().min(0).optional(),
    shards: z.number().int().min(1).max(CLUB_DIRECTORY_BUCKETS).optional(),
    scheduledAt: z.iso.datetime({ offset: true }).optional(),
  })
  .strict()
  .refine((i) => (i.shard === undefined) === (i.shards === undefined), {
    message: 'shard and shards go together',
    path: ['shards'],
  })
  .refine((i) => i.shard === undefined || i.shards === undefined || i.shard < i.shards, {
    message: 'shard must be below shards',
    path: ['shard'],
  });

// The schema and the contract must describe the same input.
const _sameShape: (i: z.infer<typeof DispatchInputSchema>) => DispatchInput = (i) => i;
void _sameShape;

export class DispatchEventError extends Error {
  override readonly name = 'DispatchEventError';
}

/** What a run dispatches: its shard and when its period starts (epoch ms; absent: when it runs). */
export interface DispatchRunInput {
  readonly shard: DispatchShard;
  readonly periodStartMs?: number;
}

/** Parses the event; throws a DispatchEventError naming each bad field (never quoting the event). */
export function parseDispatchEvent(event: unknown): DispatchRunInput {
  const result = DispatchInputSchema.safeParse(event ?? {});
  if (!result.success) {
    const problems = result.error.issues
      .map((i) => `${i.path.join('.') || '(event)'}: ${i.message}`)
      .join('; ')
      .slice(0, 500);
    throw new DispatchEventError(`dispatch event refused: ${problems}`);
  }
  const { shard, shards, scheduledAt } = result.data;
  return {
    shard: shard === undefined || shards === undefined ? WHOLE_FLEET : { index: shard, count: shards },
    ...(scheduledAt === undefined ? {} : { periodStartMs: Date.parse(scheduledAt) }),
  };
}
