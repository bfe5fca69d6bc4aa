/**
 * Recovery for one endpoint, for the `webhooks redrive` and `webhooks replay` commands: its dead
 * letters queued again, or a window of the bus archive replayed to it, always with the original
 * webhook-ids.
 */
import { type EventBridgeClient, StartReplayCommand } from '@aws-sdk/client-eventbridge';
import { newDeliveryMessage, parseDeliveryMessage } from './delivery-message';
import { type DeliveryQueue, delaySecondsUntil, MAX_DELAY_SECONDS } from './delivery-queue';
import { EndpointInputError } from './endpoint';
import { EndpointPacer, replayNameFor } from './fan-out';
import { type AdminContext, existing } from './webhook-admin';

/**
 * Queues an endpoint's dead letters again (a fresh schedule, the original webhook-id), paced at its
 * rate limit, each removed once queued. Returns how many.
 */
export async function redriveDeadLetters(
  ctx: Pick<AdminContext, 'store' | 'now'>,
  queue: DeliveryQueue,
  endpointId: string,
  options: { readonly limit?: number } = {},
): Promise<number> {
  const endpoint = await existing(ctx as AdminContext, endpointId);
  if (!endpoint.enabled) throw new EndpointInputError(`endpoint ${endpointId} is disabled: enable it first`);
  const pacer = new EndpointPacer(1);
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  let done = 0;
  while (done < limit) {
    const page = await ctx.store.listDeadLetters(endpointId, Math.min(100, limit - done));
    if (page.length === 0) break;
    const now = (ctx.now ?? Date.now)();
    for (const dead of page) {
      const old = parseDeliveryMessage(dead.message);
      const due = pacer.slot(endpointId, endpoint.ratePerSecond, now);
      const message = newDeliveryMessage(
        { 'detail-type': old.type, detail: old.data, time: old.ts },
        endpointId,
        now,
        { dueMs: due, from: 'redrive' },
      );
      await queue.send([
        { message: { ...message, ts: old.ts }, delaySeconds: delaySecondsUntil(due, now, MAX_DELAY_SECONDS) },
      ]);
      await ctx.store.deleteDeadLetter(endpointId, dead.webhookId);
      done++;
    }
  }
  return done;
}

export interface ReplayTarget {
  readonly client: EventBridgeClient;
  /** The bus archive's ARN (stack output). */
  readonly archiveArn: string;
  /** The bus's ARN (stack output). */
  readonly busArn: string;
  /** The webhook rule's ARN (stack output): the replay reaches that rule only. */
  readonly ruleArn: string;
}

/**
 * Replays `[from, to)` from the bus archive to one endpoint, with the original webhook-ids: an
 * EventBridge replay limited to the webhook rule, named for the endpoint, which the fan-out
 * delivers to that endpoint only (if its filter matches). Returns the replay's name.
 */
export async function replayToEndpoint(
  ctx: Pick<AdminContext, 'store' | 'now'>,
  target: ReplayTarget,
  endpointId: string,
  window: { readonly from: Date; readonly to: Date },
): Promise<string> {
  await existing(ctx as AdminContext, endpointId);
  if (!(window.from.getTime() < window.to.getTime()))
    throw new EndpointInputError('--from must be before --to');
  const name = replayNameFor(endpointId, (ctx.now ?? Date.now)());
  await target.client.send(
    new StartReplayCommand({
      ReplayName: name,
      Description: `gym-bridge webhooks: replay to ${endpointId}`,
      EventSourceArn: target.archiveArn,
      EventStartTime: window.from,
      EventEndTime: window.to,
      Destination: { Arn: target.busArn, FilterArns: [target.ruleArn] },
    }),
  );
  return name;
}
