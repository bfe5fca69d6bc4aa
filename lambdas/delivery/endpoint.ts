/**
 * A webhook endpoint as stored (the webhook table, ./webhook-store.ts): where it goes, what it
 * receives, how fast, and where its signing key lives. Endpoints are data: adding one needs no
 * deploy. The URL is treated as a secret (a catch-hook URL often carries its token in the path):
 * it is never logged, put in an event or printed; `hostOf` gives what may be shown.
 *
 * The filter: detail-types (or every one, `*`), optionally the clubs it covers, and optionally an
 * EventBridge event pattern on `detail` (e.g. `{ "status": ["PaymentIssue"] }`), checked with the
 * project's matcher (lambdas/events/event-pattern.ts, the one piece of the tooling a Lambda
 * may bundle) and validated when the endpoint is added or changed.
 */

import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import {
  ALL_DETAIL_TYPES,
  DETAIL_TYPES,
  type DetailType,
  WEBHOOK_ENDPOINT_ID_PATTERN,
} from '../events/catalog';
import { assertValidEventPattern, eventPatternMatcher } from '../events/event-pattern';

export const ALL_TYPES = '*';
export const DEFAULT_RATE_PER_SECOND = 10;
export const MAX_RATE_PER_SECOND = 1000;
export const MAX_STATIC_HEADERS = 10;
export const MAX_HEADER_VALUE_CHARS = 1024;
export const MAX_DESCRIPTION_CHARS = 200;

export const DISABLED_REASONS = ['operator', 'gone', 'failing'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

export const EndpointSchema = z.object({
  endpointId: z.string().regex(WEBHOOK_ENDPOINT_ID_PATTERN),
  url: z.string().min(1),
  description: z.string().max(MAX_DESCRIPTION_CHARS).optional(),
  /** Detail-types it receives, or ['*'] for all. */
  detailTypes: z.array(z.string().min(1)).min(1),
  /** An EventBridge pattern on `detail`, as JSON text. */
  detailPattern: z.string().optional(),
  clubs: z.array(z.string().min(1)).optional(),
  ratePerSecond: z.number().positive().max(MAX_RATE_PER_SECOND),
  enabled: z.boolean(),
  disabledReason: z.enum(DISABLED_REASONS).optional(),
  disabledAt: z.string().optional(),
  /** When it was last added or enabled: the episode a Webhook Endpoint Disabled event is about. */
  enabledAt: z.string(),
  /** The Secrets Manager secret holding its signing key(s) and static header values. */
  secretName: z.string().min(1),
  /** Bumped by every rotation: a cached key of an older version is read again. */
  keyVersion: z.number().int().min(1),
  /** Names of its static headers (the values are in the secret). */
  headerNames: z.array(z.string()).default([]),
  /**
   * Its own CloudWatch metrics (dimension `endpointId`, 4 metrics, $1.20 a month): opt-in; a
   * record without the field (written before it existed) reads as off.
   */
  metrics: z.boolean().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Optimistic concurrency: every write checks and bumps it. */
  version: z.number().int().min(1),
});
export type Endpoint = z.infer<typeof EndpointSchema>;

export class EndpointInputError extends Error {
  override readonly name = 'EndpointInputError';
}

export function newEndpointId(): string {
  return `ep-${randomBytes(8).toString('hex')}`;
}

/** Checks a filter's detail-types (known ones, or `*`) and pattern (valid, on `detail`). */
export function checkFilter(detailTypes: readonly string[], detailPattern: string | undefined): void {
  if (detailTypes.length === 0) throw new EndpointInputError('give at least one detail-type, or * for all');
  for (const type of detailTypes) {
    if (type !== ALL_TYPES && !(ALL_DETAIL_TYPES as readonly string[]).includes(type)) {
      throw new EndpointInputError(
        `unknown detail-type '${type}' (known: ${ALL_DETAIL_TYPES.join(', ')}; or * for all)`,
      );
    }
  }
  if (detailPattern === undefined) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(detailPattern);
  } catch {
    throw new EndpointInputError('the detail pattern is not JSON');
  }
  try {
    assertValidEventPattern({ detail: parsed as Record<string, unknown> });
  } catch (err) {
    throw new EndpointInputError(
      `the detail pattern is not a valid EventBridge pattern: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
}

/** Header names a static header may not use: the signature's, and what HTTP itself sets. */
const RESERVED_HEADERS =
  /^(webhook-.*|host|content-length|content-type|transfer-encoding|connection|user-agent|te|upgrade|keep-alive|proxy-.*|expect)$/i;

/** Checks static headers: token names, reserved ones refused, values printable and short. */
export function checkStaticHeaders(headers: Readonly<Record<string, string>>): void {
  const names = Object.keys(headers);
  if (names.length > MAX_STATIC_HEADERS)
    throw new EndpointInputError(`at most ${MAX_STATIC_HEADERS} static headers`);
  for (const name of names) {
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/.test(name))
      throw new EndpointInputError(`'${name}' is not a header name`);
    if (RESERVED_HEADERS.test(name)) throw new EndpointInputError(`header '${name}' is set by the bridge`);
    const value = headers[name] ?? '';
    if (value.length === 0 || value.length > MAX_HEADER_VALUE_CHARS || /[\r\n\u0000]/.test(value)) {
      throw new EndpointInputError(`header '${name}': 1 to ${MAX_HEADER_VALUE_CHARS} characters, one line`);
    }
  }
}

/** The event's fields the filter reads: an EventBridge event as a rule target receives it. */
export interface FilterableEvent {
  readonly 'detail-type': string;
  readonly detail: Record<string, unknown>;
}

/** A compiled filter: one pattern compiled once per endpoint version (the fan-out caches it). */
export type EndpointFilter = (event: FilterableEvent) => boolean;

export function compileFilter(endpoint: Endpoint): EndpointFilter {
  const all = endpoint.detailTypes.includes(ALL_TYPES);
  const types = new Set(endpoint.detailTypes);
  const clubs = endpoint.clubs ? new Set(endpoint.clubs) : undefined;
  const pattern = endpoint.detailPattern
    ? eventPatternMatcher({ detail: JSON.parse(endpoint.detailPattern) as Record<string, unknown> })
    : undefined;
  return (event) => {
    if (!all && !types.has(event['detail-type'])) return false;
    if (clubs && !clubs.has(String(event.detail.clubId))) return false;
    if (isAboutItself(endpoint.endpointId, event)) return false;
    return pattern ? pattern({ detail: event.detail }) : true;
  };
}

const WEBHOOK_TYPES: ReadonlySet<string> = new Set<DetailType>([
  DETAIL_TYPES.WebhookDeliveryFailed,
  DETAIL_TYPES.WebhookEndpointDisabled,
]);

/** An endpoint never receives the webhook events about itself (a failing one would feed itself). */
function isAboutItself(endpointId: string, event: FilterableEvent): boolean {
  return WEBHOOK_TYPES.has(event['detail-type']) && event.detail.endpointId === endpointId;
}
