/**
 * `webhooks listen [--port N] [--host ADDR] [--json]`: a local webhook receiver, like `stripe
 * listen`. Each POST (any path) is verified as a receiver should (`verifyWebhook` of
 * @gym-bridge/events: the HMAC of `id.timestamp.body` under $GYM_BRIDGE_WEBHOOK_SECRET, any of the
 * space-separated signatures, the timestamp within 5 minutes), then answered 204 and printed, or
 * answered 401 and the reason printed. Without the variable a secret is generated and printed once,
 * with the line that exports it for the sending terminal. Ctrl-C stops it and says what it got.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventParseError } from '../../../event-tooling/consumer-parse';
import { verifyWebhook, WebhookVerificationError } from '../../../event-tooling/consumer-webhooks';
import { rememberSecrets } from '../../../lambdas/common/redact';
import {
  generateWebhookSecret,
  isWebhookSecret,
  WEBHOOK_SECRET_RULE,
} from '../../../lambdas/delivery/webhook-signature';
import type { BridgeEvent } from '../../../lambdas/events/catalog';
import { CliUsageError, intFlag } from '../../args';
import { describeEvent } from '../../format';
import { ListenError, listenError } from '../../listen-error';
import { watchStop } from '../../stop-signal';
import { type Flags, SECRET_ENV } from './usage';

export const DEFAULT_LISTEN_PORT = 9000;
/** Larger bodies are refused (413): the bridge's events are under EventBridge's 256 KB. */
export const MAX_BODY_BYTES = 1024 * 1024;

interface Tally {
  verified: number;
  rejected: number;
  readonly seen: Map<string, number>;
}

/** The secret to verify with: $GYM_BRIDGE_WEBHOOK_SECRET, else a new one (and whether it is new). */
export function listenSecret(env: NodeJS.ProcessEnv = process.env): { secret: string; generated: boolean } {
  const given = env[SECRET_ENV]?.trim();
  if (!given) return { secret: generateWebhookSecret(), generated: true };
  if (!isWebhookSecret(given))
    throw new CliUsageError(
      `$${SECRET_ENV} is not a webhook secret: ${WEBHOOK_SECRET_RULE} (webhooks add and npm start print one)`,
    );
  return { secret: given, generated: false };
}

export async function listen(flags: Flags): Promise<number> {
  const port = intFlag('port', flags.port, { min: 0, max: 65_535, default: DEFAULT_LISTEN_PORT });
  const host = flags.host ?? '127.0.0.1';
  const { secret, generated } = listenSecret();
  const tally: Tally = { verified: 0, rejected: 0, seen: new Map() };
  const server = createServer((req, res) => {
    void receive(req, res, secret, tally, flags.json === true);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  } catch (err) {
    const e = err instanceof ListenError ? err : listenError(err, 'the webhook receiver', port, '--port');
    process.stderr.write(`gym-bridge webhooks listen: ${e.message}\n`);
    return 1;
  }
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}/`;
  const intro = generated
    ? `no $${SECRET_ENV}: verifying with a new secret, shown this once. In the terminal that sends:\n  export ${SECRET_ENV}=${secret}\n`
    : `verifying each signature with $${SECRET_ENV}\n`;
  process.stdout.write(`listening for webhooks on ${url} (any path; Ctrl-C to stop)\n${intro}\n`);
  rememberSecrets(secret);
  const stop = watchStop({ command: 'gym-bridge webhooks listen', stopping: 'stopping the receiver' });
  try {
    await stop.whenRequested;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    process.stdout.write(`stopped: ${tally.verified} verified, ${tally.rejected} rejected\n`);
  } finally {
    stop.release();
  }
  return 0;
}

function answer(res: ServerResponse, status: number, text?: string): void {
  res.writeHead(status, text === undefined ? {} : { 'content-type': 'text/plain' });
  res.end(text);
}

async function receive(
  req: IncomingMessage,
  res: ServerResponse,
  secret: string,
  tally: Tally,
  json: boolean,
): Promise<void> {
  const stamp = new Date().toISOString().slice(0, 19) + 'Z';
  const id = typeof req.headers['webhook-id'] === 'string' ? req.headers['webhook-id'] : '-';
  const rejected = (status: number, why: string) => {
    tally.rejected++;
    answer(res, status, `${why}\n`);
    process.stdout.write(
      `${stamp}  ${status}  rejected: ${why} (${req.method} ${pathOf(req)}, webhook-id ${id})\n`,
    );
  };
  if (req.method !== 'POST') return rejected(405, 'webhooks are POSTed');
  const body = await readBody(req);
  if (body === undefined) return rejected(413, `body over ${MAX_BODY_BYTES} bytes`);
  let payload: { type: string; timestamp: string; data: unknown };
  let note = '';
  try {
    payload = await verifyWebhook(secret, req.headers, body);
  } catch (err) {
    if (err instanceof WebhookVerificationError)
      return rejected(401, `signature not verified: ${err.message}`);
    if (!(err instanceof EventParseError)) return rejected(400, 'signed, but the body is not JSON');
    // Signed, so it is the bridge's; its data does not fit this catalog (a newer bridge?).
    payload = JSON.parse(body) as typeof payload;
    note = `  (data does not fit this catalog: ${err.message.slice(0, 120)})`;
  }
  tally.verified++;
  const times = (tally.seen.get(id) ?? 0) + 1;
  tally.seen.set(id, times);
  answer(res, 204);
  if (json) {
    process.stdout.write(`${JSON.stringify({ 'webhook-id': id, ...payload })}\n`);
    return;
  }
  const again = times > 1 ? `  (received ${times} times: a retry, replay or redrive)` : '';
  process.stdout.write(`${stamp}  204  ${describe(payload)}  webhook-id ${id}${again}${note}\n`);
}

function describe(payload: { type: string; data: unknown }): string {
  const data = (typeof payload.data === 'object' && payload.data !== null ? payload.data : {}) as Record<
    string,
    unknown
  >;
  let what = '';
  try {
    what = describeEvent({ detailType: payload.type, detail: data } as unknown as BridgeEvent);
  } catch {
    what = '';
  }
  const club = typeof data.clubId === 'string' ? data.clubId : '-';
  return `${String(payload.type).padEnd(34)} ${club.padEnd(8)} ${what}`.trimEnd();
}

/** The path without its query (a query may carry a token). */
function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0] ?? '/';
}

/** The body, or undefined when it is over MAX_BODY_BYTES. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
