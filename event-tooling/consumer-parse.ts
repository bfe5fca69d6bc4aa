/**
 * Parsing with clear errors, for the consumer module (./consumer.ts): `parseBridgeEvent` (a whole
 * EventBridge event) and `parseDetail` (a detail), typed results or an `EventParseError` that names
 * the detail-type, the eventId and the failing paths, never the values.
 */
import { type DetailType, EVENT_VERSION, type EventDetail, isDetailType } from '../lambdas/events/catalog';
import { EVENT_ID_PATTERN } from '../lambdas/events/event-id-pattern';
import { EVENT_SCHEMAS, EVENTBRIDGE_EVENT_SCHEMAS, type EventBridgeEvent } from './consumer-schemas';

// ---------------------------------------------------------------------------------------------
// Parsing with clear errors

export interface EventParseIssue {
  /** Dotted path from the event root, e.g. `detail.reason` (or from the detail for parseDetail). */
  readonly path: string;
  readonly message: string;
}

/** An event or detail that is not one of the bridge's, or not valid against its schema. */
export class EventParseError extends Error {
  override readonly name = 'EventParseError';
  /** The detail-type, when the input had a string one. */
  readonly detailType: string | undefined;
  /** `detail.eventId`, when it was a valid event id. */
  readonly eventId: string | undefined;
  /** Paths and messages of the problems; never the values, which may hold personal data. */
  readonly issues: readonly EventParseIssue[];
  constructor(
    message: string,
    details: { detailType?: string; eventId?: string; issues?: readonly EventParseIssue[]; cause?: unknown },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.detailType = details.detailType;
    this.eventId = details.eventId;
    this.issues = details.issues ?? [];
  }
}

const quote = (value: unknown): string => JSON.stringify(String(value)).slice(0, 80);

function eventIdOf(detail: unknown): string | undefined {
  const id = (detail as { eventId?: unknown } | null | undefined)?.eventId;
  return typeof id === 'string' && EVENT_ID_PATTERN.test(id) ? id : undefined;
}

function checkDetail<T extends DetailType>(detailType: T, detail: unknown, prefix: string[]): EventDetail<T> {
  const eventId = eventIdOf(detail);
  const subject = `'${detailType}' ${prefix.length > 0 ? 'event' : 'detail'}${eventId ? ` ${eventId}` : ''}`;
  const version = (detail as { eventVersion?: unknown } | null | undefined)?.eventVersion;
  if (typeof version === 'number' && version !== EVENT_VERSION) {
    throw new EventParseError(
      `${subject} has eventVersion ${version}; this module parses eventVersion ${EVENT_VERSION}` +
        ` (match detail.eventVersion in your rule, or update the module: docs/events-versioning.md)`,
      {
        detailType,
        ...(eventId ? { eventId } : {}),
        issues: [{ path: [...prefix, 'eventVersion'].join('.'), message: `expected ${EVENT_VERSION}` }],
      },
    );
  }
  const result = EVENT_SCHEMAS[detailType].safeParse(detail);
  if (result.success) return result.data as EventDetail<T>;
  const issues = result.error.issues.map((issue) => ({
    path: [...prefix, ...issue.path.map(String)].join('.') || '(detail)',
    message: issue.message,
  }));
  throw new EventParseError(
    `invalid ${subject}: ${issues
      .slice(0, 5)
      .map((i) => `${i.path}: ${i.message}`)
      .join('; ')}${issues.length > 5 ? ` (and ${issues.length - 5} more)` : ''}`,
    { detailType, ...(eventId ? { eventId } : {}), issues, cause: result.error },
  );
}

/**
 * Validates one event's `detail` against the schema of its detail-type and returns it typed.
 * Unknown keys are dropped. Throws `EventParseError`.
 */
export function parseDetail<T extends DetailType>(detailType: T, detail: unknown): EventDetail<T> {
  if (!isDetailType(detailType)) {
    throw new EventParseError(`unknown detail-type ${quote(detailType)}`, { detailType: String(detailType) });
  }
  return checkDetail(detailType, detail, []);
}

/**
 * Validates an EventBridge event of the bridge (as a Lambda target receives it) and returns it
 * typed, discriminated by `detail-type`. With `expected`, an event of another detail-type is an
 * error too (a rule that routes more than the code handles). Throws `EventParseError`.
 */
export function parseBridgeEvent<T extends DetailType = DetailType>(
  event: unknown,
  expected?: T | readonly T[],
): EventBridgeEvent<T> {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new EventParseError('not an EventBridge event: expected an object', {});
  }
  const detailType = (event as Record<string, unknown>)['detail-type'];
  if (!isDetailType(detailType)) {
    throw new EventParseError(
      `not a gym-bridge event: unknown detail-type ${quote(detailType)}` +
        (typeof detailType === 'string' ? ' (a newer detail-type? update the module)' : ''),
      {
        ...(typeof detailType === 'string' ? { detailType } : {}),
        issues: [{ path: 'detail-type', message: 'unknown detail-type' }],
      },
    );
  }
  const wanted = expected === undefined ? undefined : ([] as readonly DetailType[]).concat(expected);
  if (wanted && !wanted.includes(detailType)) {
    throw new EventParseError(
      `unexpected detail-type '${detailType}' (expected ${wanted.map((t) => `'${t}'`).join(' or ')})`,
      { detailType, issues: [{ path: 'detail-type', message: 'unexpected detail-type' }] },
    );
  }
  const detail = checkDetail(detailType, (event as Record<string, unknown>).detail, ['detail']);
  const result = EVENTBRIDGE_EVENT_SCHEMAS[detailType].omit({ detail: true }).safeParse(event);
  if (!result.success) {
    const issues = result.error.issues.map((issue) => ({
      path: issue.path.map(String).join('.') || '(event)',
      message: issue.message,
    }));
    const eventId = eventIdOf(detail);
    throw new EventParseError(
      `invalid '${detailType}' event${eventId ? ` ${eventId}` : ''}: ${issues
        .slice(0, 5)
        .map((i) => `${i.path}: ${i.message}`)
        .join('; ')}`,
      { detailType, ...(eventId ? { eventId } : {}), issues, cause: result.error },
    );
  }
  return { ...result.data, detail } as EventBridgeEvent<T>;
}
