/**
 * The README's three lines end to end: `webhooks listen` in one process, `npm start -- --webhook
 * URL` in another, with the same $GYM_BRIDGE_WEBHOOK_SECRET. Between them, a pass-through on a real
 * socket checks every request with the official `standardwebhooks` package before handing it to
 * listen unchanged. Every event the demo published (its events file) arrives, verified by both,
 * with its eventId as webhook-id. listen answers a request signed with another secret 401 and says
 * so; without the variable, the demo makes a secret and prints it once.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWebhookSecret } from '../../../lambdas/delivery/webhook-signature';
import { type CliProcess, killCli, runCli, spawnCli } from '../../support/cli-process';

const secret = generateWebhookSecret();
let dir: string;
let listen: CliProcess;
let listenUrl: string;
let proxy: Server;
let proxyUrl: string;
const passed: { webhookId: string; status: number }[] = [];
const unverified: string[] = [];

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const webhookHeaders = (req: IncomingMessage) => ({
  'webhook-id': String(req.headers['webhook-id']),
  'webhook-timestamp': String(req.headers['webhook-timestamp']),
  'webhook-signature': String(req.headers['webhook-signature']),
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'webhooks-listen-'));
  listen = spawnCli(['webhooks', 'listen', '--port', '0'], { GYM_BRIDGE_WEBHOOK_SECRET: secret });
  listenUrl = (await listen.waitFor(/listening for webhooks on (http:\/\/127\.0\.0\.1:\d+\/)/, 40_000))[1]!;
  proxy = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const headers = webhookHeaders(req);
      try {
        new Webhook(secret).verify(body, headers);
      } catch (err) {
        unverified.push(`${headers['webhook-id']}: ${(err as Error).message}`);
      }
      // The first request finds the receiver down for a moment: retried, not lost.
      if (passed.length === 0) {
        passed.push({ webhookId: headers['webhook-id'], status: 503 });
        res.writeHead(503);
        res.end('restarting');
        return;
      }
      const answer = await fetch(`${listenUrl}hook`, {
        method: 'POST',
        headers: { ...headers, 'content-type': String(req.headers['content-type']) },
        body,
      });
      passed.push({ webhookId: headers['webhook-id'], status: answer.status });
      res.writeHead(answer.status);
      res.end(await answer.text());
    })();
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/hook`;
}, 60_000);

afterAll(async () => {
  await killCli(listen);
  await new Promise((resolve) => proxy?.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

describe('webhooks listen and npm start -- --webhook', () => {
  it('the demo delivers every event it publishes, signed; listen verifies and prints each', async () => {
    const eventsFile = join(dir, 'events.jsonl');
    const start = spawnCli(
      [
        ...['start', '--clubs', '1', '--interval', '1', '--activity', '8'],
        ...['--webhook', proxyUrl, '--events-file', eventsFile],
      ],
      { GYM_BRIDGE_WEBHOOK_SECRET: secret },
    );
    // Without the variable: a secret of its own, printed once (run beside the first).
    const alone = runCli(['start', '--clubs', '1', '--duration', '2', '--webhook', 'http://127.0.0.1:9/x'], {
      GYM_BRIDGE_WEBHOOK_SECRET: '',
    });
    try {
      await listen.waitFor(/(^.* {2}204 {2}.*\n){5}/m, 90_000);
      // Stopped only once the receiver's moment down is over: stopped while the endpoint waits to
      // be tried again (2 to 32 s), the demo's last 5 s would not deliver what is queued behind it.
      await start.waitFor(/delivering again/, 90_000);
      start.child.kill('SIGINT');
      expect(await start.exit, start.stdout() + start.stderr()).toBe(0);
    } finally {
      await killCli(start);
    }
    const published = (await readFile(eventsFile, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { detail: { eventId: string } }).detail.eventId);
    const delivered = passed.filter((p) => p.status === 204).map((p) => p.webhookId);
    expect(unverified).toEqual([]);
    expect([...new Set(delivered)].sort()).toEqual([...new Set(published)].sort());
    const printed = listen.stdout().match(/^\S+ {2}204 {2}.* webhook-id ([0-9a-f]{32})/gm) ?? [];
    expect(printed).toHaveLength(delivered.length);
    expect(start.stdout()).toContain('webhooks to http://127.0.0.1:');
    expect(start.stdout()).toContain('signed with $GYM_BRIDGE_WEBHOOK_SECRET');
    expect(start.stdout()).toMatch(
      new RegExp(
        `webhooks: ${delivered.length} delivered to http://127\\.0\\.0\\.1:\\d+/…, 1 failed attempt\\n`,
      ),
    );
    // The receiver's moment down, said once, then its return.
    expect(start.stdout()).toMatch(
      /webhook http:\/\/127\.0\.0\.1:\d+\/…: not delivered \(HTTP 503[^)]*\); retried/,
    );
    expect(start.stdout()).toMatch(/webhook http:\/\/127\.0\.0\.1:\d+\/…: delivering again/);
    expect(start.stdout() + start.stderr()).not.toContain(secret);

    const other = await alone;
    expect(other.code, other.stderr).toBe(0);
    const made = /export GYM_BRIDGE_WEBHOOK_SECRET=(whsec_\S+)/.exec(other.stdout)?.[1];
    expect(made).toMatch(/^whsec_/);
    expect(other.stdout.split(made!)).toHaveLength(2);
  }, 150_000);

  it('listen answers 401 to a signature it cannot verify, and says so', async () => {
    const body = JSON.stringify({ type: 'Member Joined', timestamp: new Date().toISOString(), data: {} });
    const forged = new Webhook(generateWebhookSecret()).sign('f00dfeed', new Date(), body);
    const answer = await fetch(`${listenUrl}somewhere`, {
      method: 'POST',
      headers: {
        'webhook-id': 'f00dfeed',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': forged,
      },
      body,
    });
    expect(answer.status).toBe(401);
    await listen.waitFor(
      /401 {2}rejected: signature not verified: no signature matches \(POST \/somewhere, webhook-id f00dfeed\)/,
    );
  }, 30_000);
});
