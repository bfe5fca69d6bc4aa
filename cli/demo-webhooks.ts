/**
 * `npm start -- --webhook URL`: the local demo also delivers every event it publishes to URL as a
 * signed webhook (Standard Webhooks), through the real fan-out and delivery use cases in this
 * process (lambdas/delivery/local-webhooks.ts: the endpoint in the demo's embedded DynamoDB, the
 * key and the queue in memory, real HTTP). The secret comes from $GYM_BRIDGE_WEBHOOK_SECRET (a
 * secret is never a flag); without it one is generated and printed once. http and loopback URLs
 * are allowed here (the local address policy), as `webhooks listen` is on this machine.
 *
 * What it prints: the endpoint and the secret's origin at the start, a line when the receiver stops
 * answering and when it answers again (not one per delivery: the events are printed already), and
 * the tally at the end.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { rememberSecrets } from '../lambdas/common/redact';
import { checkWebhookUrl } from '../lambdas/delivery/address-policy';
import { type AttemptOutcome, sendWebhook } from '../lambdas/delivery/http-delivery';
import { busEventOf, LocalWebhooks } from '../lambdas/delivery/local-webhooks';
import { redactedUrl } from '../lambdas/delivery/webhook-admin';
import { generateWebhookSecret, isWebhookSecret } from '../lambdas/delivery/webhook-signature';
import type { BridgeEvent } from '../lambdas/events/catalog';
import type { EventSink } from '../lambdas/events/event-sink';
import { CliUsageError } from './args';
import { SECRET_ENV } from './commands/webhooks/usage';

export const DEMO_WEBHOOK_TABLE = 'gym-bridge-demo-webhooks';

/** The URL and secret of `--webhook`, checked before anything starts (exit 2 on a bad one). */
export interface DemoWebhookSettings {
  readonly url: string;
  readonly secret: string;
  readonly generated: boolean;
}

export function demoWebhookSettings(url: string, env: NodeJS.ProcessEnv = process.env): DemoWebhookSettings {
  try {
    checkWebhookUrl(url, 'local');
  } catch (err) {
    throw new CliUsageError(`--webhook: ${(err as Error).message}`);
  }
  const given = env[SECRET_ENV]?.trim();
  if (given && !isWebhookSecret(given))
    throw new CliUsageError(
      `$${SECRET_ENV} is not a webhook secret: whsec_ followed by the base64 of 24 to 64 bytes (unset it and the demo makes one)`,
    );
  return given
    ? { url, secret: given, generated: false }
    : { url, secret: generateWebhookSecret(), generated: true };
}

/**
 * What the last polls published, delivered for up to DRAIN_MS (a receiver that is down is not waited
 * for). A batch under way at the deadline settles first (each attempt has its timeout), so the tally
 * counts what the receiver got and nothing is sent after the summary.
 */
const DRAIN_MS = 5000;
async function drain(hooks: LocalWebhooks): Promise<void> {
  const until = Date.now() + DRAIN_MS;
  while (hooks.queue.size > 0 && Date.now() < until) {
    const next = hooks.queue.nextVisibleAt() ?? until;
    if (next > until) return;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(100, next - Date.now()))));
    await hooks.pump(until).catch(() => 0);
  }
}

export interface DemoWebhook {
  /** Hands the published events to the webhook fan-out (after `next`, the demo's other sink). */
  sinkAfter(next: EventSink | undefined): EventSink;
  /** The tally, for the demo's last lines. */
  summary(): string;
  stop(): Promise<void>;
}

export async function startDemoWebhook(
  client: DynamoDBClient,
  settings: DemoWebhookSettings,
  write: (line: string) => void,
): Promise<DemoWebhook> {
  const shown = redactedUrl(settings.url);
  const tally = { delivered: 0, failed: 0, down: false };
  const send = async (request: Parameters<typeof sendWebhook>[0]): Promise<AttemptOutcome> => {
    const out = await sendWebhook(request, { policy: 'local' });
    if (out.ok) tally.delivered++;
    else tally.failed++;
    if (!out.ok && !tally.down)
      write(`webhook ${shown}: not delivered (${out.error}); retried on the schedule, none is lost`);
    if (out.ok && tally.down) write(`webhook ${shown}: delivering again`);
    tally.down = !out.ok;
    return out;
  };
  const hooks = await LocalWebhooks.start({ client, tableName: DEMO_WEBHOOK_TABLE, send });
  await hooks.add({
    url: settings.url,
    detailTypes: ['*'],
    secret: settings.secret,
    description: 'npm start --webhook',
  });
  write(
    settings.generated
      ? `webhooks to ${shown}, signed (Standard Webhooks) with a new secret, shown this once (no $${SECRET_ENV}):\n  export ${SECRET_ENV}=${settings.secret}`
      : `webhooks to ${shown}, signed with $${SECRET_ENV}`,
  );
  rememberSecrets(settings.secret);
  hooks.run(250);
  let stopped: Promise<unknown> | undefined;
  return {
    sinkAfter: (next) => ({
      async publish(events: readonly BridgeEvent[]) {
        if (next) await next.publish(events);
        const time = new Date().toISOString();
        await hooks.publish(events.map((e) => busEventOf(e, time)));
      },
    }),
    summary: () => {
      const left = hooks.queue.size;
      const lost =
        left > 0 ? `, ${left} not delivered yet (the demo keeps its queue in memory: lost now)` : '';
      return `webhooks: ${tally.delivered} delivered to ${shown}, ${tally.failed} failed attempt${tally.failed === 1 ? '' : 's'}${lost}`;
    },
    stop: async () => {
      // The pump under way first: its deliveries in flight are tallied, not counted as left.
      stopped ??= hooks.stop().then(() => drain(hooks));
      await stopped;
    },
  };
}
