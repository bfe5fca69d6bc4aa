/**
 * `webhooks replay` and `webhooks redrive`: an endpoint's history delivered again, with the
 * original webhook-ids (lambdas/delivery/webhook-recovery.ts).
 *
 * - replay, deployed: an EventBridge replay of the bus's archive limited to the webhook rule and
 *   named for the endpoint (`webhooks-<id>-<time>`), which the fan-out delivers to that endpoint
 *   only, if its filter matches. The archive and window are checked first, as `events replay` does.
 * - replay, local stack: the window of local-aws's archive (in the webhook table) fanned out to the
 *   endpoint under the same replay name, into the local delivery queue.
 * - redrive: its dead letters queued again (the SQS delivery queue, or the local stack's).
 */

import {
  busArn,
  busNameOf,
  checkReplayWindow,
  describeArchive,
  findBusArchive,
  ruleArns,
} from '../../../event-tooling/replay';
import { EndpointRegistry } from '../../../lambdas/delivery/endpoint-cache';
import { EndpointPacer, fanOut, replayNameFor } from '../../../lambdas/delivery/fan-out';
import { showEndpoint } from '../../../lambdas/delivery/webhook-admin';
import { redriveDeadLetters, replayToEndpoint } from '../../../lambdas/delivery/webhook-recovery';
import { CliUsageError, intFlag } from '../../args';
import { eventBridgeClient } from '../../aws-env';
import { LocalArchive } from '../../local-stack/local-archive';
import { checkBusName } from '../../preflight';
import { parseInstant } from '../events/replay-archive';
import { endpointIdOf } from './manage';
import type { WebhookStack } from './stack';
import type { Flags } from './usage';

export async function redrive(flags: Flags, stack: WebhookStack): Promise<number> {
  const id = endpointIdOf(flags, 'redrive');
  const limit = intFlag('limit', flags.limit, { min: 1, max: 1_000_000 });
  const queue = stack.queue(flags['queue-url']);
  const view = await showEndpoint(stack.admin(), id);
  const done = await redriveDeadLetters(stack.admin(), queue, id, limit === undefined ? {} : { limit });
  process.stdout.write(
    done === 0
      ? `${id} has no dead letters: nothing to redrive\n`
      : `${id}: ${done} dead letter(s) queued again with their original webhook-ids, a fresh retry schedule, at most ${view.ratePerSecond}/s${stack.local ? ' (local-aws delivers them now)' : ''}\n`,
  );
  return 0;
}

export async function replay(flags: Flags, stack: WebhookStack): Promise<number> {
  const id = endpointIdOf(flags, 'replay');
  const nowMs = Date.now();
  const fromMs = parseInstant('from', flags.from, nowMs);
  const toMs = flags.to === undefined ? nowMs : parseInstant('to', flags.to, nowMs);
  if (!(fromMs < toMs)) throw new CliUsageError('--from must be before --to');
  if (toMs > nowMs) throw new CliUsageError('--to is in the future: use --to now (or leave it out)');
  const view = await showEndpoint(stack.admin(), id);
  if (!view.enabled)
    throw new CliUsageError(`${id} is disabled: enable it first (webhooks enable --endpoint ${id})`);
  return stack.local
    ? replayLocal(stack, id, fromMs, toMs, nowMs)
    : replayArchive(flags, stack, id, { fromMs, toMs, nowMs });
}

async function replayArchive(
  flags: Flags,
  stack: WebhookStack,
  id: string,
  w: { fromMs: number; toMs: number; nowMs: number },
): Promise<number> {
  if (!flags.bus || !flags.rule)
    throw new CliUsageError(
      'webhooks replay needs --bus NAME|ARN (the stack output EventBusName) and --rule NAME|ARN (WebhookRuleArn)',
    );
  checkBusName(flags.bus);
  const client = eventBridgeClient();
  const archive = await describeArchive(client, flags.archive ?? (await findBusArchive(client, flags.bus)));
  const warnings = checkReplayWindow(archive, w.fromMs, w.toMs, w.nowMs);
  const destination = flags.bus.startsWith('arn:') ? flags.bus : await busArn(client, flags.bus);
  if (destination !== archive.eventSourceArn)
    throw new CliUsageError(
      `archive '${archive.name}' records bus ${archive.eventSourceArn}, not ${destination}`,
    );
  const [ruleArn] = await ruleArns(client, [flags.rule], busNameOf(destination));
  const name = await replayToEndpoint(
    { ...stack.admin(), now: () => w.nowMs },
    { client, archiveArn: archive.arn, busArn: destination, ruleArn: ruleArn! },
    id,
    { from: new Date(w.fromMs), to: new Date(w.toMs) },
  );
  for (const warning of warnings) process.stderr.write(`note: ${warning}\n`);
  process.stdout.write(
    `replay ${name} started: the events of ${window(w.fromMs, w.toMs)} in archive ${archive.name}, to ${id} only (those its filter matches), with their original webhook-ids\n` +
      `progress: aws events describe-replay --replay-name ${name}\n`,
  );
  return 0;
}

async function replayLocal(
  stack: WebhookStack,
  id: string,
  fromMs: number,
  toMs: number,
  nowMs: number,
): Promise<number> {
  const events = await new LocalArchive(stack.client, stack.tableName).window(fromMs, toMs);
  const name = replayNameFor(id, nowMs);
  const out = await fanOut(
    {
      registry: new EndpointRegistry({ store: stack.store, checkEveryMs: 0 }),
      queue: stack.queue(),
      pacer: new EndpointPacer(1),
      now: () => nowMs,
    },
    events.map((e, i) => ({ recordId: String(i), body: JSON.stringify({ ...e, 'replay-name': name }) })),
  );
  if (out.failedRecordIds.length > 0) throw new Error(`${out.failedRecordIds.length} events not queued`);
  process.stdout.write(
    `replay ${name}: ${out.deliveries} of the ${events.length} archived events of ${window(fromMs, toMs)} queued for ${id} (the others do not match its filter), with their original webhook-ids; local-aws delivers them now\n`,
  );
  return 0;
}

const window = (fromMs: number, toMs: number) =>
  `${new Date(fromMs).toISOString()} .. ${new Date(toMs).toISOString()}`;
