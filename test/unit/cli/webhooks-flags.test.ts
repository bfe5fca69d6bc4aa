/**
 * The `webhooks` command's input, without AWS: flags refused in one line naming the flag and never
 * echoing a value (a header's value is a secret, a URL's path may hold a token), static headers read
 * as 'Name: value' lines, the signing secret of `listen` and `start --webhook` from the environment
 * (or generated), whether an endpoint's filter takes an event and why not, and what status prints.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CliUsageError } from '../../../cli/args';
import { parseWebhookFlags, run } from '../../../cli/commands/webhooks';
import { addInput, updateInput } from '../../../cli/commands/webhooks/endpoint-input';
import { listenSecret } from '../../../cli/commands/webhooks/listen';
import { excerptLine, statusLines } from '../../../cli/commands/webhooks/status';
import type { Flags } from '../../../cli/commands/webhooks/usage';
import { demoWebhookSettings } from '../../../cli/demo-webhooks';
import { filterFacts } from '../../../cli/explain/event-deliveries';
import { isLoopbackEndpoint } from '../../../cli/local-stack/local-stack-table';
import { forgetKnownSecrets, redactKnownSecrets } from '../../../lambdas/common/redact';
import type { Endpoint } from '../../../lambdas/delivery/endpoint';
import type { EndpointStatus } from '../../../lambdas/delivery/webhook-admin';
import { generateWebhookSecret } from '../../../lambdas/delivery/webhook-signature';

const SECRET_VALUE = 'k3y-that-must-never-show-1234';

async function usageError(work: () => unknown): Promise<string> {
  try {
    await work();
  } catch (err) {
    expect(err).toBeInstanceOf(CliUsageError);
    const message = (err as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    return message;
  }
  throw new Error('no usage error');
}

afterEach(() => {
  delete process.env.GYM_BRIDGE_WEBHOOK_HEADERS;
  forgetKnownSecrets();
});

describe('webhooks flags', () => {
  it('refuses a stray argument by its position, without echoing it', async () => {
    const message = await usageError(() =>
      parseWebhookFlags('add', ['--url', 'https://h.example.com/x', `x-api-key: ${SECRET_VALUE}`]),
    );
    expect(message).toContain('word 3');
    expect(message).not.toContain(SECRET_VALUE);
  });

  it('says a secret is never a flag when one is tried as a flag, without echoing it', async () => {
    for (const argv of [['--header', `x-api-key: ${SECRET_VALUE}`], [`--secret=${SECRET_VALUE}`]]) {
      const message = await usageError(() => parseWebhookFlags('add', argv));
      expect(message).toMatch(/a secret is never a flag/);
      expect(message).not.toContain(SECRET_VALUE);
    }
  });

  it('reads --metrics alone as on, --metrics on|off on add and update only', async () => {
    const url = ['--url', 'https://h.example.com/'];
    expect(parseWebhookFlags('add', [...url, '--metrics']).metrics).toBe('on');
    expect(parseWebhookFlags('add', ['--metrics', ...url]).metrics).toBe('on');
    expect(parseWebhookFlags('add', ['--metrics', 'off', ...url]).metrics).toBe('off');
    const id = ['--endpoint', 'ep-0123456789abcdef'];
    expect(parseWebhookFlags('update', [...id, '--metrics', 'off']).metrics).toBe('off');
    expect(parseWebhookFlags('update', [...id, '--metrics=on']).metrics).toBe('on');
    expect(parseWebhookFlags('update', [...id, '--metrics']).metrics).toBe('on');
    expect(await usageError(() => run(['list', '--metrics']))).toBe('webhooks list does not take --metrics');
  });

  it('refuses flags another subcommand takes, and unknown subcommands', async () => {
    expect(await usageError(() => run(['list', '--url', 'https://h.example.com/']))).toBe(
      'webhooks list does not take --url',
    );
    expect(await usageError(() => run(['frobnicate']))).toMatch(/^unknown subcommand 'frobnicate'/);
    expect(await usageError(() => run([]))).toMatch(/a subcommand is required/);
  });
});

describe('endpoint input', () => {
  const flags = (f: Record<string, unknown>) => f as Flags;

  it('reads a filter, a rate and static headers from the variable, and remembers their values', async () => {
    process.env.GYM_BRIDGE_WEBHOOK_HEADERS = `x-api-key: ${SECRET_VALUE}\n\nX-Tenant:  acme \n`;
    const input = await addInput(
      flags({
        url: 'https://hooks.example.com/catch/tok3n-in-the-path',
        type: ['Payment Failed', '*'],
        pattern: '{"reason":["declined"]}',
        club: ['club-1'],
        rate: '2.5',
      }),
    );
    expect(input).toEqual({
      url: 'https://hooks.example.com/catch/tok3n-in-the-path',
      detailTypes: ['Payment Failed', '*'],
      detailPattern: '{"reason":["declined"]}',
      clubs: ['club-1'],
      ratePerSecond: 2.5,
      headers: { 'x-api-key': SECRET_VALUE, 'X-Tenant': 'acme' },
    });
    // Whatever prints them later prints them redacted (main.ts passes all output through this).
    expect(redactKnownSecrets(`a ${SECRET_VALUE} b`)).not.toContain(SECRET_VALUE);
    expect(redactKnownSecrets('https://hooks.example.com/catch/tok3n-in-the-path')).not.toContain('tok3n');
  });

  it('refuses bad input in one line, naming the line, never the value', async () => {
    process.env.GYM_BRIDGE_WEBHOOK_HEADERS = `x-api-key ${SECRET_VALUE}`;
    const headers = await usageError(() => addInput(flags({ url: 'https://h.example.com/', type: ['*'] })));
    expect(headers).toBe("line 1 of $GYM_BRIDGE_WEBHOOK_HEADERS is not 'Name: value'");
    delete process.env.GYM_BRIDGE_WEBHOOK_HEADERS;
    expect(await usageError(() => addInput(flags({ url: 'https://h.example.com/' })))).toMatch(/--type/);
    expect(await usageError(() => addInput(flags({ type: ['*'] })))).toMatch(/--url/);
    expect(
      await usageError(() => addInput(flags({ url: 'https://h.example.com/', type: ['payment failed'] }))),
    ).toMatch(/did you mean 'Payment Failed'/);
    for (const rate of ['0', '-1', '1001', 'ten'])
      expect(
        await usageError(() => addInput(flags({ url: 'https://h.example.com/', type: ['*'], rate }))),
      ).toMatch(/^--rate/);
  });

  it('update changes nothing without a change, and takes no headers from the environment', async () => {
    process.env.GYM_BRIDGE_WEBHOOK_HEADERS = `x-api-key: ${SECRET_VALUE}`;
    expect(await usageError(() => updateInput(flags({})))).toMatch(/changes nothing/);
    expect((await updateInput(flags({ rate: '5' }))).changes).toEqual({ ratePerSecond: 5 });
    expect(await updateInput(flags({ 'clear-pattern': true, 'clear-headers': true }))).toEqual({
      changes: { headers: {} },
      clear: { pattern: true, clubs: false },
    });
    expect(await usageError(() => updateInput(flags({ pattern: '{}', 'clear-pattern': true })))).toMatch(
      /not both/,
    );
  });

  it("--metrics turns an endpoint's own metrics on or off; anything else is refused unechoed", async () => {
    const add = { url: 'https://h.example.com/', type: ['*'] };
    expect(await addInput(flags({ ...add, metrics: 'on' }))).toMatchObject({ metrics: true });
    expect(await addInput(flags({ ...add, metrics: 'off' }))).not.toHaveProperty('metrics');
    expect(await addInput(flags(add))).not.toHaveProperty('metrics');
    expect((await updateInput(flags({ metrics: 'off' }))).changes).toEqual({ metrics: false });
    expect((await updateInput(flags({ metrics: 'on' }))).changes).toEqual({ metrics: true });
    for (const work of [
      () => updateInput(flags({ metrics: SECRET_VALUE })),
      () => addInput(flags({ ...add, metrics: SECRET_VALUE })),
    ]) {
      const message = await usageError(work);
      expect(message).toBe('--metrics is on or off (alone: on)');
    }
  });
});

describe('the signing secret of listen and start --webhook', () => {
  it('comes from $GYM_BRIDGE_WEBHOOK_SECRET (trimmed), else is generated; a bad one is refused unechoed', async () => {
    const secret = generateWebhookSecret();
    expect(listenSecret({ GYM_BRIDGE_WEBHOOK_SECRET: `${secret}\n` })).toEqual({ secret, generated: false });
    const made = listenSecret({});
    expect(made.generated).toBe(true);
    expect(made.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const bad = await usageError(() => listenSecret({ GYM_BRIDGE_WEBHOOK_SECRET: SECRET_VALUE }));
    expect(bad).not.toContain(SECRET_VALUE);
    expect(demoWebhookSettings('http://localhost:9000/hook', { GYM_BRIDGE_WEBHOOK_SECRET: secret })).toEqual({
      url: 'http://localhost:9000/hook',
      secret,
      generated: false,
    });
    expect(demoWebhookSettings('http://localhost:9000/hook', {}).generated).toBe(true);
    expect(await usageError(() => demoWebhookSettings('http://169.254.169.254/', {}))).toMatch(
      /^--webhook: address not allowed: 169.254.169.254 is a link-local/,
    );
  });
});

describe('explain --event: does a filter take the event', () => {
  const endpoint = (over: Partial<Endpoint>): Endpoint => ({
    endpointId: 'ep-0123456789abcdef',
    url: 'https://h.example.com/',
    detailTypes: ['*'],
    ratePerSecond: 10,
    enabled: true,
    enabledAt: '2026-01-01T00:00:00Z',
    secretName: 'x/keys-0',
    keyVersion: 1,
    headerNames: [],
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    version: 1,
    ...over,
  });
  const failed = { detailType: 'Payment Failed', detail: { clubId: 'club-1', reason: 'declined' } };

  it('says which part of the filter leaves it out', () => {
    expect(filterFacts(endpoint({}), failed)).toEqual({ takes: true });
    expect(filterFacts(endpoint({ detailTypes: ['Member Joined'] }), failed).why).toBe(
      'it takes Member Joined, not Payment Failed',
    );
    expect(filterFacts(endpoint({ clubs: ['club-2'] }), failed).why).toBe(
      'it covers clubs club-2, not club-1',
    );
    expect(filterFacts(endpoint({ detailPattern: '{"reason":["dishonoured"]}' }), failed).why).toBe(
      'its pattern fails at detail.reason: it wants ["dishonoured"], the event has "declined"',
    );
  });
});

describe('webhooks status lines', () => {
  it('shows the last success, the last failure with a quoted, cut excerpt, the circuit and dead letters', () => {
    const status: EndpointStatus = {
      endpoint: {
        endpointId: 'ep-0123456789abcdef',
        host: 'h.example.com',
        url: 'https://h.example.com/…',
        detailTypes: ['*'],
        ratePerSecond: 10,
        enabled: true,
        headerNames: [],
        metrics: false,
        createdAt: '',
        updatedAt: '',
      },
      failures: 3,
      failingSince: '2026-01-01T00:00:00.000Z',
      retryAt: '2026-01-01T00:05:00.000Z',
      lastSuccess: { at: '2025-12-31T23:00:00.000Z', status: 204, webhookId: 'aaa', latencyMs: 812 },
      lastFailure: {
        at: '2026-01-01T00:00:30.000Z',
        status: 503,
        error: 'HTTP 503',
        excerpt: `down\n${'x'.repeat(300)}`,
        webhookId: 'bbb',
        attempt: 3,
      },
      deadLetters: 2,
    };
    const text = statusLines(status, Date.parse('2026-01-01T00:01:00Z')).join('\n');
    expect(text).toContain(
      'last success  2025-12-31T23:00:00.000Z  204  webhook-id aaa  812 ms from publication',
    );
    expect(text).toContain(
      'last failure  2026-01-01T00:00:30.000Z  503  HTTP 503  attempt 3  webhook-id bbb',
    );
    expect(text).toContain(`answer: ${excerptLine(status.lastFailure!.excerpt!)}`);
    expect(excerptLine(status.lastFailure!.excerpt!)).toBe(JSON.stringify(`down\n${'x'.repeat(115)}…`));
    expect(text).toContain(
      '3 attempt(s) in a row since 2026-01-01T00:00:00.000Z; nothing is attempted before',
    );
    expect(text).toContain('dead letters  2 (webhooks redrive --endpoint ep-0123456789abcdef');
  });
});

describe('the local stack', () => {
  it('is only ever a DynamoDB endpoint on this machine', () => {
    expect(isLoopbackEndpoint('http://127.0.0.1:4567')).toBe(true);
    expect(isLoopbackEndpoint('http://localhost:4567')).toBe(true);
    expect(isLoopbackEndpoint('http://[::1]:4567')).toBe(true);
    expect(isLoopbackEndpoint(undefined)).toBe(false);
    expect(isLoopbackEndpoint('https://dynamodb.eu-west-1.amazonaws.com')).toBe(false);
    expect(isLoopbackEndpoint('http://127.0.0.1.example.com')).toBe(false);
  });
});
