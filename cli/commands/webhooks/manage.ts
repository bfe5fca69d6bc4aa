/**
 * `webhooks add | list | show | update | disable | enable | remove | rotate-secret`: the library's
 * use cases (lambdas/delivery/webhook-admin.ts) and what they print. A signing secret is printed
 * once, by add and rotate-secret, on a line of its own (the last); views carry the URL's host and
 * a redacted URL, static headers by name only.
 */

import { rememberSecrets } from '../../../lambdas/common/redact';
import { ALL_TYPES } from '../../../lambdas/delivery/endpoint';
import {
  addEndpoint,
  type EndpointView,
  listEndpoints,
  removeEndpoint,
  rotateSecret,
  setEndpointEnabled,
  showEndpoint,
  updateEndpoint,
  viewOf,
} from '../../../lambdas/delivery/webhook-admin';
import { CliUsageError } from '../../args';
import { textTable } from '../../format';
import { addInput, type Clearing, secretFromStdin, updateInput } from './endpoint-input';
import { secretPrefixOf, type WebhookStack } from './stack';
import type { Flags } from './usage';

/** The one endpoint a subcommand is about. */
export function endpointIdOf(flags: Pick<Flags, 'endpoint'>, subcommand: string): string {
  const ids = flags.endpoint ?? [];
  if (ids.length !== 1) throw new CliUsageError(`webhooks ${subcommand} needs one --endpoint ID`);
  const id = ids[0]!;
  if (!/^ep-[0-9a-f]{16}$/.test(id))
    throw new CliUsageError(
      `--endpoint is an endpoint id (ep- and 16 hex digits, as list prints), got '${id}'`,
    );
  return id;
}

/** What an endpoint receives, in a few words. */
export function filterWords(v: EndpointView): string {
  const types = v.detailTypes.includes(ALL_TYPES) ? 'every event' : v.detailTypes.join(', ');
  return [
    types,
    v.detailPattern ? `detail ${v.detailPattern}` : '',
    v.clubs ? `clubs ${v.clubs.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

function summaryLine(v: EndpointView): string {
  const headers = v.headerNames.length ? `; headers ${v.headerNames.join(', ')}` : '';
  return `POST ${v.url}  ${filterWords(v)}; ${v.ratePerSecond}/s${headers}${v.metrics ? '; metrics on' : ''}`;
}

/** Prints a secret once, on its own line, then keeps it out of anything printed after. */
function printSecretOnce(heading: string, secret: string | undefined): void {
  process.stdout.write(secret ? `${heading}\n${secret}\n` : `${heading}\n`);
  if (secret) rememberSecrets(secret);
}

export async function add(flags: Flags, stack: WebhookStack): Promise<number> {
  const input = await addInput(flags);
  const ctx = stack.admin(secretPrefixOf(flags, stack));
  const { endpoint, secret } = await addEndpoint(ctx, input);
  process.stdout.write(`${endpoint.endpointId} added: ${summaryLine(endpoint)}\n`);
  printSecretOnce(
    input.secret
      ? 'signing with the secret read from standard input (not printed)'
      : 'signing secret, shown this once (the receiver verifies with it):',
    input.secret ? undefined : secret,
  );
  return 0;
}

export async function list(flags: Flags, stack: WebhookStack): Promise<number> {
  const views = await listEndpoints(stack.admin());
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(views, null, 2)}\n`);
    return 0;
  }
  if (views.length === 0) {
    process.stdout.write(`no webhook endpoints in ${stack.tableName} (webhooks add adds one)\n`);
    return 0;
  }
  const rows = views.map((v) => [
    v.endpointId,
    v.enabled ? 'yes' : `no (${v.disabledReason ?? '?'})`,
    v.url,
    filterWords(v),
    `${v.ratePerSecond}/s`,
    v.headerNames.join(',') || '-',
    v.metrics ? 'on' : 'off',
  ]);
  const header = ['ENDPOINT', 'ENABLED', 'URL', 'RECEIVES', 'RATE', 'HEADERS', 'METRICS'];
  process.stdout.write(`${table(header, rows)}\n`);
  return 0;
}

export async function show(flags: Flags, stack: WebhookStack): Promise<number> {
  const view = await showEndpoint(stack.admin(), endpointIdOf(flags, 'show'));
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
    return 0;
  }
  const lines: [string, string][] = [
    ['url', `POST ${view.url} (path and query not shown)`],
    ['enabled', view.enabled ? 'yes' : `no: ${view.disabledReason ?? '?'} since ${view.disabledAt ?? '?'}`],
    ['receives', filterWords(view)],
    ['rate', `${view.ratePerSecond} deliveries a second`],
    ['headers', view.headerNames.length ? `${view.headerNames.join(', ')} (values not shown)` : 'none'],
    ['metrics', view.metrics ? 'on: its own CloudWatch metrics (dimension endpointId)' : 'off'],
    ...(view.description ? [['description', view.description] as [string, string]] : []),
    ['created', view.createdAt],
    ['updated', view.updatedAt],
  ];
  process.stdout.write(`${view.endpointId}\n${lines.map(([k, v]) => `  ${k.padEnd(12)} ${v}`).join('\n')}\n`);
  return 0;
}

export async function update(flags: Flags, stack: WebhookStack): Promise<number> {
  const id = endpointIdOf(flags, 'update');
  const { changes, clear } = await updateInput(flags);
  const ctx = stack.admin();
  let view = Object.keys(changes).length > 0 ? await updateEndpoint(ctx, id, changes) : undefined;
  if (clear.pattern || clear.clubs) view = await clearFields(stack, id, clear);
  process.stdout.write(`${id} updated: ${summaryLine(view!)}\n`);
  return 0;
}

/** Drops the detail pattern or the clubs of an endpoint (the library changes, it does not remove). */
async function clearFields(stack: WebhookStack, id: string, clear: Clearing): Promise<EndpointView> {
  const current = (await stack.store.getEndpoint(id))!;
  const { detailPattern, clubs, ...rest } = current;
  const next = {
    ...rest,
    ...(detailPattern && !clear.pattern ? { detailPattern } : {}),
    ...(clubs && !clear.clubs ? { clubs } : {}),
    updatedAt: new Date().toISOString(),
    version: current.version + 1,
  };
  await stack.store.putEndpoint(next, current.version);
  return viewOf(next);
}

export async function setEnabled(flags: Flags, stack: WebhookStack, enabled: boolean): Promise<number> {
  const id = endpointIdOf(flags, enabled ? 'enable' : 'disable');
  await setEndpointEnabled(stack.admin(), id, enabled);
  process.stdout.write(
    enabled
      ? `${id} enabled: new events are delivered to it again; its failures start over (dead letters: webhooks redrive)\n`
      : `${id} disabled: no new deliveries; those on their way go to its dead letters (webhooks enable, then redrive)\n`,
  );
  return 0;
}

export async function remove(flags: Flags, stack: WebhookStack): Promise<number> {
  const id = endpointIdOf(flags, 'remove');
  await removeEndpoint(stack.admin(), id);
  process.stdout.write(`${id} removed, with its health, dead letters and signing keys\n`);
  return 0;
}

export async function rotate(flags: Flags, stack: WebhookStack): Promise<number> {
  const id = endpointIdOf(flags, 'rotate-secret');
  const own = flags['secret-stdin'] ? await secretFromStdin() : undefined;
  const { secret, previousUntil } = await rotateSecret(stack.admin(), id, own);
  const heading = `${id}: deliveries are signed with the new secret AND the old one until ${previousUntil}, then with the new one only`;
  printSecretOnce(
    own
      ? `${heading} (the new one read from standard input, not printed)`
      : `${heading}. The new secret, shown this once:`,
    own ? undefined : secret,
  );
  return 0;
}

function table(header: readonly string[], rows: readonly string[][]): string {
  return textTable([header, ...rows]);
}
