/**
 * PutEvents of the local EventBridge endpoint: the real service's limits (1 to 10 entries, under
 * 256 KB in total), the injected throttles and entry failures, and each accepted entry kept and
 * handed to `onEvent` with a UUID-shaped id from the seeded randomness.
 */
import type { RandomSource } from '../lambdas/common/seeded-random';
import { entrySize, MAX_ENTRIES_PER_REQUEST, MAX_REQUEST_BYTES } from '../lambdas/events/put-events-batches';
import { AwsJsonError } from './aws-json-server';
import { busName, createBus, type EventBridgeState, type ReceivedEvent } from './local-eventbridge-state';

/** PutEvents: the request checked against the real limits, then throttled or each entry put. */
export function putEvents(state: EventBridgeState, input: Record<string, unknown>): unknown {
  const { stats, pending, faults, random } = state;
  stats.putEventsRequests++;
  const entries = input.Entries;
  if (!Array.isArray(entries) || entries.length < 1 || entries.length > MAX_ENTRIES_PER_REQUEST) {
    throw new AwsJsonError(
      'ValidationException',
      `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length between 1 and ${MAX_ENTRIES_PER_REQUEST}`,
    );
  }
  const total = entries.reduce((sum: number, e: Record<string, unknown>) => sum + sizeOf(e), 0);
  if (total > MAX_REQUEST_BYTES) {
    throw new AwsJsonError(
      'ValidationException',
      'Total size of the entries in the request is over the limit.',
    );
  }
  if (pending.throttles > 0 || (faults.throttleRate > 0 && random() < faults.throttleRate)) {
    if (pending.throttles > 0) pending.throttles--;
    stats.throttledRequests++;
    throw new AwsJsonError('ThrottlingException', 'Rate exceeded');
  }
  const results = (entries as Record<string, unknown>[]).map((entry) => putEntry(state, entry));
  return {
    FailedEntryCount: results.filter((r) => 'ErrorCode' in r).length,
    Entries: results,
  };
}

/** The entry's problem as a PutEvents result entry, or undefined when it can be delivered. */
function entryProblem(
  state: EventBridgeState,
  name: string,
  entry: Record<string, unknown>,
): Record<string, string> | undefined {
  if (!state.buses.has(name)) {
    if (state.options.autoCreateBuses === false) {
      return { ErrorCode: 'InvalidArgument', ErrorMessage: `Event bus ${name} does not exist.` };
    }
    createBus(state, name);
  }
  const { Source: source, DetailType: detailType } = entry;
  if (typeof source !== 'string' || source === '' || typeof detailType !== 'string' || detailType === '') {
    return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Parameters Source and DetailType are required.' };
  }
  return undefined;
}

function parseDetail(detail: unknown): object | undefined {
  try {
    const parsed: unknown = JSON.parse(typeof detail === 'string' ? detail : '');
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function putEntry(state: EventBridgeState, entry: Record<string, unknown>): Record<string, string> {
  const { pending, faults, random, stats, options } = state;
  const name = busName(entry.EventBusName);
  const problem = entryProblem(state, name, entry);
  if (problem) return problem;
  const detail = parseDetail(entry.Detail);
  if (detail === undefined) return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
  if (pending.failEntries > 0 || (faults.failEntryRate > 0 && random() < faults.failEntryRate)) {
    if (pending.failEntries > 0) pending.failEntries--;
    stats.failedEntries++;
    return { ErrorCode: 'InternalFailure', ErrorMessage: 'Injected failure' };
  }
  const id = nextEventId(random);
  const received: ReceivedEvent = {
    id,
    eventBusName: name,
    source: entry.Source as string,
    detailType: entry.DetailType as string,
    detail,
    time: timeOf(entry.Time),
    resources: Array.isArray(entry.Resources) ? entry.Resources.map(String) : [],
  };
  if (options.keepEvents !== false) state.events.push(received);
  state.onAccepted?.(received);
  options.onEvent?.(received);
  return { EventId: id };
}

/** A UUID-shaped id from the seeded randomness (a run replays with the same ids). */
function nextEventId(random: RandomSource): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function sizeOf(entry: Record<string, unknown>): number {
  return entrySize({
    Time: entry.Time === undefined ? undefined : new Date(0),
    Source: typeof entry.Source === 'string' ? entry.Source : '',
    DetailType: typeof entry.DetailType === 'string' ? entry.DetailType : '',
    Detail: typeof entry.Detail === 'string' ? entry.Detail : undefined,
    Resources: Array.isArray(entry.Resources) ? entry.Resources.map(String) : undefined,
  });
}

/** The SDK sends Time as epoch seconds (JSON 1.1); accept an ISO string too. */
function timeOf(value: unknown): string {
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value * 1000).toISOString();
  if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return new Date(value).toISOString();
  return new Date().toISOString();
}
