/**
 * The `webhooks` commands end to end against the local stack, as a user runs them: `local-aws` in a
 * child process (its DynamoDB, its EventBridge, its webhook delivery), each command a child process
 * with only the environment local-aws printed; events put on its bus with the real SDK; a receiver
 * on a real socket that checks every request with the official `standardwebhooks` package (and the
 * test with the project's `verifyWebhook` too).
 */
import { spawn } from 'node:child_process';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CliUsageError } from '../../../cli/args';
import { run as explain } from '../../../cli/commands/explain';
import { run } from '../../../cli/commands/webhooks';
import { sampleEvents } from '../../../cli/sample-events';
import { verifyWebhook } from '../../../event-tooling/consumer-webhooks';
import { newDeliveryMessage } from '../../../lambdas/delivery/delivery-message';
import { WebhookStore } from '../../../lambdas/delivery/webhook-store';
import { type BridgeEvent, DETAIL_TYPES } from '../../../lambdas/events/catalog';
import { CLI_ENTRY, type CliProcess, type CliResult, killCli, spawnCli } from '../../support/cli-process';
import { type Receiver, startReceiver } from '../delivery/receiver';

const HEADER_VALUE = 'tenant-key-0f9e8d7c6b5a';
const TABLE = 'gym-bridge-webhooks';

let localAws: CliProcess;
let env: Record<string, string>;
let receiver: Receiver;
const secrets = new Map<string, string>();
let failed: BridgeEvent[];
let visits: BridgeEvent[];
let bus: EventBridgeClient;
let store: WebhookStore;
const startedAt = Date.now();

/** A `webhooks` command in a child process, with stdin, resolved with its exit and output. */
function webhooks(args: string[], stdin = '', extraEnv: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI_ENTRY, 'webhooks', ...args], {
      env: { ...process.env, ...env, ...extraEnv },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

async function ok(args: string[], stdin = ''): Promise<string> {
  const r = await webhooks(args, stdin);
  expect(r.code, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

/**
 * A `webhooks` command in this process, with local-aws's environment: the command's own errors
 * (main.ts turns a CliUsageError into exit 2 and its one line) and what it printed.
 */
async function inProcess(
  args: string[],
  command: (argv: string[]) => Promise<number> = run,
): Promise<{ code?: number; error?: Error; stdout: string }> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  let stdout = '';
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  try {
    return { code: await command(args), stdout };
  } catch (err) {
    return { error: err as Error, stdout };
  } finally {
    write.mockRestore();
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

async function put(events: readonly BridgeEvent[]): Promise<void> {
  const out = await bus.send(
    new PutEventsCommand({
      Entries: events.map((e) => ({
        EventBusName: 'gym-bridge-local',
        Source: 'gym-bridge',
        DetailType: e.detailType,
        Detail: JSON.stringify(e.detail),
      })),
    }),
  );
  expect(out.FailedEntryCount).toBe(0);
}

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const reasonOf = (e: BridgeEvent) => (e.detail as { reason?: string }).reason;
const idsAt = (path: string) => receiver.delivered(path).map((r) => r.webhookId);
const sorted = (ids: readonly string[]) => [...new Set(ids)].sort();
const idsOf = (events: readonly BridgeEvent[]) => sorted(events.map((e) => e.detail.eventId));
const endpointOf = (stdout: string) => /^(ep-[0-9a-f]{16}) added/m.exec(stdout)![1]!;
const secretOf = (stdout: string) => stdout.trimEnd().split('\n').at(-1)!;

beforeAll(async () => {
  localAws = spawnCli(['local-aws', '--port', '0', '--quiet']);
  const [line] = await localAws.waitFor(/^export .+$/m, 40_000);
  env = Object.fromEntries(
    line
      .replace(/^export /, '')
      .split(/\s+/)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
  const config = {
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  };
  bus = new EventBridgeClient({ ...config, endpoint: env.AWS_ENDPOINT_URL_EVENTBRIDGE! });
  store = new WebhookStore({
    client: new DynamoDBClient({ ...config, endpoint: env.AWS_ENDPOINT_URL_DYNAMODB! }),
    tableName: TABLE,
  });
  receiver = await startReceiver(secrets);
  [failed, visits] = await Promise.all([
    sampleEvents({ detailType: DETAIL_TYPES.PaymentFailed, count: 4 }),
    sampleEvents({ detailType: DETAIL_TYPES.MemberVisitRecorded, count: 2 }),
  ]);
}, 90_000);

afterAll(async () => {
  await killCli(localAws);
  await receiver?.close();
});

describe('webhooks against the local stack (local-aws)', () => {
  let a: string;
  let b: string;
  const takenByB = (e: BridgeEvent) => e.detail.clubId === 'club-1' && reasonOf(e) === 'declined';
  const declined = () => failed.filter(takenByB);

  it('adds endpoints, each secret printed once; delivers what each filter takes, signed and verified', async () => {
    const outA = await ok(['add', '--url', receiver.url('/a'), '--type', 'Payment Failed']);
    a = endpointOf(outA);
    secrets.set('/a', secretOf(outA));
    const outB = await ok(
      [
        'add',
        ...['--url', receiver.url('/b'), '--type', '*', '--club', 'club-1'],
        ...['--pattern', '{"reason":["declined"]}', '--headers-stdin', '--rate', '50'],
      ],
      `x-api-key: ${HEADER_VALUE}\n`,
    );
    b = endpointOf(outB);
    secrets.set('/b', secretOf(outB));
    expect(secretOf(outA)).toMatch(/^whsec_/);
    expect(outA.split(secretOf(outA))).toHaveLength(2);
    expect(outB).not.toContain(HEADER_VALUE);
    expect(outB).toContain('headers x-api-key');
    expect(declined().length).toBeGreaterThan(0);

    await put([...failed, ...visits]);
    await until(
      'every delivery',
      () => idsAt('/a').length >= failed.length && idsAt('/b').length >= declined().length,
    );
    await new Promise((r) => setTimeout(r, 500)); // nothing more is on its way

    // Each event to each endpoint its filter takes, none to one it does not, webhook-id = eventId.
    expect(sorted(idsAt('/a'))).toEqual(idsOf(failed));
    expect(sorted(idsAt('/b'))).toEqual(idsOf(declined()));
    expect(receiver.unverified).toEqual([]);
    for (const r of receiver.received) {
      const payload = await verifyWebhook(secrets.get(r.path)!, r.headers, r.body);
      expect(payload.type).toBe('Payment Failed');
      expect((payload.data as { eventId: string }).eventId).toBe(r.webhookId);
    }
    expect(receiver.delivered('/b').every((r) => r.headers['x-api-key'] === HEADER_VALUE)).toBe(true);
    expect(receiver.delivered('/a').every((r) => r.headers['x-api-key'] === undefined)).toBe(true);
  }, 90_000);

  it('lists and shows endpoints without secrets, URL paths or header values', async () => {
    const listed = JSON.parse(await ok(['list', '--json'])) as {
      endpointId: string;
      headerNames: string[];
    }[];
    expect(listed.map((e) => e.endpointId).sort()).toEqual([a, b].sort());
    const shown = await ok(['show', '--endpoint', b]);
    expect(shown).toContain('headers      x-api-key (values not shown)');
    expect(shown).toContain('receives     every event; detail {"reason":["declined"]}; clubs club-1');
    for (const text of [JSON.stringify(listed), shown]) {
      expect(text).not.toContain(HEADER_VALUE);
      expect(text).not.toContain(secrets.get('/a')!);
      expect(text).not.toContain('/b');
    }
  }, 60_000);

  it('status shows the last success and, after a 503, the last failure with its status and excerpt', async () => {
    receiver.script('/a', () => ({ status: 503, body: 'maintenance window, back at 10:00' }));
    await put([failed[0]!]);
    await until('the 503', () => receiver.received.some((r) => r.path === '/a' && r.answered === 503));
    receiver.script('/a', () => ({ status: 204 }));
    const text = await ok(['status', '--endpoint', a]);
    expect(text).toMatch(new RegExp(`^${a}  127\\.0\\.0\\.1:\\d+  enabled$`, 'm'));
    expect(text).toMatch(/ {2}last success {2}\S+ {2}204 {2}webhook-id [0-9a-f]{32}/);
    expect(text).toMatch(
      new RegExp(
        `last failure  \\S+  503  HTTP 503[^\\n]*attempt 1  webhook-id ${failed[0]!.detail.eventId}`,
      ),
    );
    expect(text).toContain('answer: "maintenance window, back at 10:00"');
    // The retry (about 5 s later) is delivered: nothing was lost.
    await until(
      'the retry',
      () => receiver.delivered('/a').filter((r) => r.webhookId === failed[0]!.detail.eventId).length >= 2,
    );
  }, 60_000);

  it('rotate-secret prints the new secret once; deliveries then carry both signatures', async () => {
    const old = secrets.get('/a')!;
    const out = await ok(['rotate-secret', '--endpoint', a]);
    const fresh = secretOf(out);
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(old);
    expect(out).toMatch(/signed with the new secret AND the old one until \S+Z/);
    secrets.set('/a', fresh);
    const before = receiver.delivered('/a').length;
    await put([failed[1]!]);
    const r = await until('the delivery after the rotation', () => receiver.delivered('/a')[before]);
    expect(r.signature.split(' ')).toHaveLength(2);
    const headers = {
      'webhook-id': r.webhookId,
      'webhook-timestamp': String(r.timestamp),
      'webhook-signature': r.signature,
    };
    expect(() => new Webhook(old).verify(r.body, headers)).not.toThrow();
    expect(() => new Webhook(fresh).verify(r.body, headers)).not.toThrow();
    expect(receiver.unverified).toEqual([]);
  }, 60_000);

  it('replay re-delivers the archive to that endpoint only, with the original webhook-ids', async () => {
    const before = { a: idsAt('/a').length, b: idsAt('/b').length };
    const out = await ok(['replay', '--endpoint', b, '--from', new Date(startedAt).toISOString()]);
    // The archive holds every event the bus received: the ones the tests above put again too.
    const archived = [...failed, ...visits, failed[0]!, failed[1]!];
    const taken = archived.filter(takenByB).length;
    expect(out).toMatch(
      new RegExp(`^replay webhooks-${b}-\\d{14}: ${taken} of the ${archived.length} archived events`),
    );
    await until('the replay', () => idsAt('/b').length >= before.b + taken);
    expect(sorted(idsAt('/b').slice(before.b))).toEqual(idsOf(declined()));
    await new Promise((r) => setTimeout(r, 500));
    expect(idsAt('/a').length).toBe(before.a);
    expect(receiver.unverified).toEqual([]);
  }, 60_000);

  it('redrive delivers the dead letters again with their ids; disabled, an endpoint gets nothing', async () => {
    const event = failed[2]!;
    const message = newDeliveryMessage(
      { 'detail-type': event.detailType, detail: event.detail as unknown as Record<string, unknown> },
      a,
      Date.now(),
    );
    await store.putDeadLetter(a, {
      webhookId: event.detail.eventId,
      message: JSON.stringify(message),
      reason: 'schedule-exhausted',
      deadLetteredAt: Date.now(),
      attempts: 10,
      lastStatus: 503,
    });
    expect((await inProcess(['status', '--endpoint', a])).stdout).toContain(
      `dead letters  1 (webhooks redrive --endpoint ${a}`,
    );
    const before = receiver.delivered('/a').length;
    expect(await ok(['redrive', '--endpoint', a])).toContain(`${a}: 1 dead letter(s) queued again`);
    const r = await until('the redriven delivery', () => receiver.delivered('/a')[before]);
    expect(r.webhookId).toBe(event.detail.eventId);
    expect((await inProcess(['redrive', '--endpoint', a])).stdout).toBe(
      `${a} has no dead letters: nothing to redrive\n`,
    );

    expect(await ok(['disable', '--endpoint', a])).toContain(`${a} disabled`);
    await new Promise((r) => setTimeout(r, 1200)); // local-aws reads the registry every second
    await put([failed[3]!]);
    await until('B', () => !takenByB(failed[3]!) || idsAt('/b').includes(failed[3]!.detail.eventId));
    await new Promise((r) => setTimeout(r, 800));
    expect(receiver.delivered('/a')).toHaveLength(before + 1);
    expect((await inProcess(['enable', '--endpoint', a])).stdout).toContain(`${a} enabled`);
  }, 90_000);

  it('explain --event says which filter takes an event, and why another does not', async () => {
    const visit = visits[0]!;
    const line = JSON.stringify({ detailType: visit.detailType, detail: visit.detail });
    const { code, stdout } = await inProcess(['--event', line], explain);
    expect(code).toBe(0);
    expect(stdout).toContain(`event ${visit.detail.eventId} (Member Visit Recorded): webhook deliveries`);
    expect(stdout).toContain(
      `  ${a}  127.0.0.1:${new URL(receiver.url('/')).port}\n    - its filter does not take the event: it takes Payment Failed, not Member Visit Recorded`,
    );
    expect(stdout).toMatch(
      new RegExp(
        `${b}[^\\n]*\\n {4}- its filter does not take the event: its pattern fails at detail\\.reason: it wants \\["declined"\\], the event has no such field`,
      ),
    );
  }, 30_000);

  it('updates and removes endpoints', async () => {
    expect(await ok(['update', '--endpoint', b, '--clear-pattern', '--all-clubs', '--rate', '5'])).toBe(
      `${b} updated: POST ${receiver.url('/')}…  every event; 5/s; headers x-api-key\n`,
    );
    expect(await ok(['remove', '--endpoint', b])).toContain(`${b} removed`);
    const listed = JSON.parse((await inProcess(['list', '--json'])).stdout) as { endpointId: string }[];
    expect(listed.map((e) => e.endpointId)).toEqual([a]);
  }, 60_000);

  it('refuses bad input in one line, exit 2, never echoing a secret', async () => {
    // Two as a user meets them (the process, its exit code, its one line) ...
    const [address, header] = await Promise.all([
      webhooks(['add', '--url', 'http://169.254.169.254/latest', '--type', '*']),
      webhooks(['add', '--url', receiver.url('/c'), '--type', '*', '--header', `x-api-key: ${HEADER_VALUE}`]),
    ]);
    for (const r of [address, header]) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr + r.stdout).not.toContain(HEADER_VALUE);
    }
    expect(address.stderr).toBe(
      'gym-bridge webhooks: address not allowed: 169.254.169.254 is a link-local (cloud metadata) address\n',
    );
    expect(header.stderr).toMatch(
      /^gym-bridge webhooks: Unknown option '--header': a secret is never a flag/,
    );
    // ... the others in this process, against the same local stack.
    const bad = [
      [['add', '--url', receiver.url('/c'), '--type', 'Payment Faild'], /did you mean 'Payment Failed'/],
      [
        ['add', '--url', receiver.url('/c'), '--type', '*', '--pattern', '{"reason":"declined"}'],
        /^the detail pattern is not a valid EventBridge pattern/,
      ],
      [['show', '--endpoint', 'ep-00000000000000ff'], /^no webhook endpoint ep-00000000000000ff$/],
      [['replay', '--endpoint', a, '--from', '2026-02-30'], /^--from must be ISO 8601/],
      [['redrive', '--endpoint', a, '--limit', 'all'], /^--limit must be an integer/],
    ] as const;
    for (const [args, message] of bad) {
      const { error } = await inProcess([...args]);
      expect(error, args.join(' ')).toBeInstanceOf(CliUsageError);
      expect(error!.message).toMatch(message);
      expect(error!.message.split('\n')).toHaveLength(1);
    }
  }, 60_000);
});
