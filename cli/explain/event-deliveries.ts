/**
 * `explain --event ID|FILE|JSON`: an event's webhook deliveries, from the webhook table. Per
 * endpoint: whether its filter takes the event and, when not, why (the detail-type, the clubs, the
 * first field of its pattern that fails: the matcher of `events match`); whether the event is in its
 * dead letters (why, after how many attempts, the last answer); whether it is the endpoint's last
 * success or last failure; and the endpoint's state (disabled, failing, waiting on its circuit).
 *
 * The table keeps what an operator acts on, not every delivery: a deployed stage logs every
 * delivery (`<webhookId> <endpointId> <result> <status> <attempt>` in the delivery function's
 * `webhook batch` lines), which the saved Logs Insights query `<service>/webhook-event` finds by
 * eventId; local-aws prints them as they happen.
 */
import { existsSync } from 'node:fs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ALL_TYPES, type Endpoint } from '../../lambdas/delivery/endpoint';
import type { EndpointHealth, WebhookStore } from '../../lambdas/delivery/webhook-store';
import { explainEventPattern } from '../../lambdas/events/event-pattern';
import { CliUsageError } from '../args';
import { readEvents } from '../commands/events/match';
import { openStack } from '../commands/webhooks/stack';
import { excerptLine } from '../commands/webhooks/status';
import { documentClient } from '../local-stack/local-stack-table';

/** The event, when it was given whole (its filter can then be judged). */
interface GivenEvent {
  readonly detailType: string;
  readonly detail: Record<string, unknown>;
}

export interface EndpointDeliveryFacts {
  readonly endpointId: string;
  readonly host: string;
  readonly enabled: boolean;
  readonly disabledReason?: string;
  /** Undefined when only the eventId was given. */
  readonly filter?: { readonly takes: boolean; readonly why?: string };
  readonly deadLetter?: {
    readonly at: string;
    readonly reason: string;
    readonly attempts: number;
    readonly lastStatus?: number;
    readonly lastError?: string;
  };
  readonly lastSuccess?: { readonly at: string; readonly status: number };
  readonly lastFailure?: {
    readonly at: string;
    readonly status?: number;
    readonly error: string;
    readonly attempt: number;
    readonly excerpt?: string;
  };
  readonly failing?: { readonly failures: number; readonly retryAt?: string };
}

export interface EventDeliveryFacts {
  readonly eventId: string;
  readonly detailType?: string;
  readonly endpoints: EndpointDeliveryFacts[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Whether the endpoint's filter takes the event, and why not (as the fan-out decides it). */
export function filterFacts(endpoint: Endpoint, event: GivenEvent): { takes: boolean; why?: string } {
  if (!endpoint.detailTypes.includes(ALL_TYPES) && !endpoint.detailTypes.includes(event.detailType))
    return { takes: false, why: `it takes ${endpoint.detailTypes.join(', ')}, not ${event.detailType}` };
  if (endpoint.clubs && !endpoint.clubs.includes(String(event.detail.clubId)))
    return {
      takes: false,
      why: `it covers clubs ${endpoint.clubs.join(', ')}, not ${String(event.detail.clubId)}`,
    };
  if (event.detail.endpointId === endpoint.endpointId && event.detailType.startsWith('Webhook '))
    return { takes: false, why: 'an endpoint never receives the webhook events about itself' };
  if (!endpoint.detailPattern) return { takes: true };
  const result = explainEventPattern(
    { detail: JSON.parse(endpoint.detailPattern) as Record<string, unknown> },
    { detail: event.detail },
  );
  if (result.matches) return { takes: true };
  const m = result.mismatch;
  return {
    takes: false,
    why: `its pattern fails at ${m.path}: it wants ${JSON.stringify(m.expected)}, the event has ${m.actual === undefined ? 'no such field' : JSON.stringify(m.actual)}`,
  };
}

async function deadLetterOf(
  store: WebhookStore,
  client: Parameters<typeof documentClient>[0],
  endpointId: string,
  eventId: string,
): Promise<EndpointDeliveryFacts['deadLetter']> {
  const out = await documentClient(client).send(
    new GetCommand({ TableName: store.tableName, Key: { pk: `EP#${endpointId}#DEAD`, sk: eventId } }),
  );
  const item = out.Item;
  if (!item) return undefined;
  return {
    at: iso(Number(item.deadLetteredAt)),
    reason: String(item.reason),
    attempts: Number(item.attempts ?? 0),
    ...(typeof item.lastStatus === 'number' ? { lastStatus: item.lastStatus } : {}),
    ...(typeof item.lastError === 'string' ? { lastError: item.lastError } : {}),
  };
}

function healthFacts(h: EndpointHealth, eventId: string, nowMs: number): Partial<EndpointDeliveryFacts> {
  const s = h.lastSuccess;
  const f = h.lastFailure;
  return {
    ...(s?.webhookId === eventId ? { lastSuccess: { at: iso(s.at), status: s.status } } : {}),
    ...(f?.webhookId === eventId
      ? {
          lastFailure: {
            at: iso(f.at),
            ...(f.status === undefined ? {} : { status: f.status }),
            error: f.error,
            attempt: f.attempt,
            ...(f.excerpt ? { excerpt: f.excerpt } : {}),
          },
        }
      : {}),
    ...(h.failures > 0
      ? {
          failing: {
            failures: h.failures,
            ...(h.retryAt && h.retryAt > nowMs ? { retryAt: iso(h.retryAt) } : {}),
          },
        }
      : {}),
  };
}

export async function eventDeliveryFacts(
  stack: { store: WebhookStore; client: Parameters<typeof documentClient>[0] },
  eventId: string,
  event: GivenEvent | undefined,
  nowMs = Date.now(),
): Promise<EventDeliveryFacts> {
  const endpoints = await stack.store.listEndpoints();
  const health = await stack.store.getHealth(endpoints.map((e) => e.endpointId));
  const facts: EndpointDeliveryFacts[] = [];
  for (const e of endpoints) {
    const deadLetter = await deadLetterOf(stack.store, stack.client, e.endpointId, eventId);
    facts.push({
      endpointId: e.endpointId,
      host: new URL(e.url).host,
      enabled: e.enabled,
      ...(e.disabledReason ? { disabledReason: e.disabledReason } : {}),
      ...(event ? { filter: filterFacts(e, event) } : {}),
      ...(deadLetter ? { deadLetter } : {}),
      ...healthFacts(health.get(e.endpointId)!, eventId, nowMs),
    });
  }
  return { eventId, ...(event ? { detailType: event.detailType } : {}), endpoints: facts };
}

/** The events `--event` names: an eventId, or events whole (inline JSON or a file, as events match reads). */
export function eventsOf(value: string): { eventId: string; event?: GivenEvent }[] {
  if (!/^\s*[[{]/.test(value) && !existsSync(value)) {
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(value))
      throw new CliUsageError('--event is an eventId, an event as JSON, or a file of events');
    return [{ eventId: value }];
  }
  return readEvents(value).map((e, i) => {
    const detail = e.detail as Record<string, unknown> | undefined;
    if (!detail || typeof detail.eventId !== 'string')
      throw new CliUsageError(`--event: event ${i + 1} has no detail.eventId`);
    return { eventId: detail.eventId, event: { detailType: String(e['detail-type']), detail } };
  });
}

export function renderDeliveries(f: EventDeliveryFacts): string {
  const lines = [`event ${f.eventId}${f.detailType ? ` (${f.detailType})` : ''}: webhook deliveries`];
  if (f.endpoints.length === 0) lines.push('  no webhook endpoints: nothing is delivered');
  for (const e of f.endpoints) {
    const state = e.enabled ? '' : `  DISABLED (${e.disabledReason ?? '?'})`;
    lines.push(`  ${e.endpointId}  ${e.host}${state}`);
    const say = (text: string) => lines.push(`    - ${text}`);
    if (e.filter)
      say(
        e.filter.takes ? 'its filter takes the event' : `its filter does not take the event: ${e.filter.why}`,
      );
    if (e.lastSuccess)
      say(`delivered ${e.lastSuccess.at}, answered ${e.lastSuccess.status} (its last success)`);
    const d = e.deadLetter;
    if (d)
      say(
        `in its dead letters since ${d.at}: ${d.reason} after ${d.attempts} attempt(s)${d.lastStatus ? `, last answer ${d.lastStatus}` : ''}${d.lastError ? ` (${d.lastError})` : ''}; webhooks redrive --endpoint ${e.endpointId} delivers it again`,
      );
    const l = e.lastFailure;
    if (l)
      say(
        `attempt ${l.attempt} failed ${l.at}: ${l.error}${l.excerpt ? `, answer ${excerptLine(l.excerpt)}` : ''} (its last failure)`,
      );
    if (e.failing)
      say(
        `the endpoint is failing: ${e.failing.failures} attempt(s) in a row${e.failing.retryAt ? `, nothing attempted before ${e.failing.retryAt}` : ''}`,
      );
    if (!e.lastSuccess && !d && !l && e.filter?.takes !== false)
      say(
        'no dead letter and not its last success or failure: delivered, or on its way (the log has each attempt)',
      );
  }
  lines.push(
    "Every attempt is in the delivery function's log: the saved Logs Insights query <service>/webhook-event finds them by eventId (locally, local-aws prints them).",
  );
  return `${lines.join('\n')}\n`;
}

/** `explain --event ...`: the deliveries of each event named. */
export async function explainEvent(value: string, table: string | undefined, json: boolean): Promise<number> {
  const events = eventsOf(value);
  const stack = await openStack(table === undefined ? {} : { table }, '--webhook-table');
  const all = [];
  for (const { eventId, event } of events) all.push(await eventDeliveryFacts(stack, eventId, event));
  process.stdout.write(
    json
      ? `${JSON.stringify(all.length === 1 ? all[0] : all, null, 2)}\n`
      : all.map(renderDeliveries).join('\n'),
  );
  return 0;
}
