import {
  EventBridgeClient,
  PutEventsCommand,
  type PutEventsCommandInput,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventValidationError } from '../../../lambdas/events/catalog';
import { EventBridgeSink, isRetryableRequestError, PublishError } from '../../../lambdas/events/publisher';
import { entrySize, MAX_REQUEST_BYTES } from '../../../lambdas/events/put-events-batches';
import { contactTransitions, largeEvents, visitEvents } from './fixtures';

const eventBridge = mockClient(EventBridgeClient);
// The SDK's client is shared with the worker's next test files (vitest.config.ts isolate: false).
afterAll(() => eventBridge.restore());
let sleeps: number[];

const awsError = (name: string, status: number) =>
  Object.assign(new Error(`${name} happened`), { name, $metadata: { httpStatusCode: status } });

const idsOf = (input: PutEventsCommandInput) =>
  (input.Entries ?? []).map((e) => (JSON.parse(e.Detail ?? '{}') as { eventId: string }).eventId);

const accepted = (entries: PutEventsRequestEntry[] | undefined) => ({
  FailedEntryCount: 0,
  Entries: (entries ?? []).map((_, i) => ({ EventId: `id-${i}` })),
});

function sink(overrides: Partial<ConstructorParameters<typeof EventBridgeSink>[0]> = {}) {
  return new EventBridgeSink({
    client: new EventBridgeClient({ region: 'us-east-1' }),
    busName: 'gym-bridge-bus',
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...overrides,
  });
}

beforeEach(() => {
  eventBridge.reset();
  sleeps = [];
});
afterEach(() => eventBridge.reset());

describe('EventBridgeSink batching', () => {
  it('sends at most 10 entries per PutEvents call, each a faithful copy of the event', async () => {
    eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => accepted(input.Entries));
    const events = visitEvents(25);
    await sink({ source: 'acme.gym-bridge' }).publish(events);

    const calls = eventBridge.commandCalls(PutEventsCommand).map((c) => c.args[0].input);
    expect(calls.map((c) => c.Entries?.length)).toEqual([10, 10, 5]);
    const entries = calls.flatMap((c) => c.Entries ?? []);
    expect(entries.map((e) => JSON.parse(e.Detail ?? ''))).toEqual(events.map((e) => e.detail));
    const first = entries[0]!;
    expect(first).toMatchObject({
      Source: 'acme.gym-bridge',
      DetailType: 'Member Visit Recorded',
      EventBusName: 'gym-bridge-bus',
    });
    expect(first.Time).toEqual(new Date(events[0]!.detail.occurredAt));
    expect(sleeps).toEqual([]);
  });

  it('keeps every request under 256 KB as AWS counts entry size', async () => {
    eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => accepted(input.Entries));
    const events = largeEvents(12, 60_000);
    await sink().publish(events);

    const calls = eventBridge.commandCalls(PutEventsCommand).map((c) => c.args[0].input.Entries ?? []);
    expect(calls.map((c) => c.length)).toEqual([4, 4, 4]);
    for (const entries of calls) {
      expect(entries.reduce((sum, e) => sum + entrySize(e), 0)).toBeLessThanOrEqual(MAX_REQUEST_BYTES);
    }
  });

  it('does nothing for an empty list', async () => {
    await sink().publish([]);
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(0);
  });

  it('validates every event before sending any', async () => {
    const events = visitEvents(3);
    const broken = structuredClone(events[2]!) as { detail: Record<string, unknown> };
    broken.detail.clubId = '';
    await expect(sink().publish([events[0]!, events[1]!, broken as never])).rejects.toThrow(
      EventValidationError,
    );
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(0);
  });
});

describe('EventBridgeSink retries', () => {
  it('retries only the entries that failed, alone, after a backoff', async () => {
    const events = visitEvents(8);
    const failing = new Set([events[2]!.detail.eventId, events[5]!.detail.eventId]);
    let call = 0;
    eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => {
      call++;
      const ids = idsOf(input);
      if (call > 1) return accepted(input.Entries);
      return {
        FailedEntryCount: 2,
        Entries: ids.map((id, i) =>
          failing.has(id)
            ? { ErrorCode: 'InternalFailure', ErrorMessage: 'try again' }
            : { EventId: `ok-${i}` },
        ),
      };
    });
    await sink().publish(events);

    const calls = eventBridge.commandCalls(PutEventsCommand).map((c) => idsOf(c.args[0].input));
    expect(calls).toHaveLength(2);
    expect(calls[1]).toEqual([events[2]!.detail.eventId, events[5]!.detail.eventId]);
    expect(sleeps).toHaveLength(1);
  });

  it("keeps a subject's transitions in order: the later one is sent after the earlier is accepted", async () => {
    // Prepare: a member's two contact-preference transitions (a re-published A -> B, then B -> C)
    // among visits; the first transition's entry fails once
    const [first, second] = contactTransitions();
    const events = [...visitEvents(3), first!, second!];
    let failedOnce = false;
    eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => ({
      FailedEntryCount: 0,
      Entries: idsOf(input).map((id, i) => {
        if (id !== first!.detail.eventId || failedOnce) return { EventId: `ok-${i}` };
        failedOnce = true;
        return { ErrorCode: 'InternalFailure', ErrorMessage: 'try again' };
      }),
    }));
    // Act
    await sink().publish(events);
    // Assess: accepted in order: the visits and the first transition (failed, then retried), and
    // only then the second
    const calls = eventBridge.commandCalls(PutEventsCommand).map((c) => idsOf(c.args[0].input));
    const ids = (e: { detail: { eventId: string } }) => e.detail.eventId;
    expect(calls).toEqual([[...visitEvents(3).map(ids), ids(first!)], [ids(first!)], [ids(second!)]]);
  });

  it("holds a subject's later transitions when an earlier one is not delivered", async () => {
    const [first, second] = contactTransitions();
    eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => ({
      FailedEntryCount: 1,
      Entries: idsOf(input).map(() => ({ ErrorCode: 'AccessDeniedException', ErrorMessage: 'no' })),
    }));
    const err = await sink()
      .publish([first!, second!])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PublishError);
    expect((err as PublishError).failedEventIds).toEqual([first!.detail.eventId, second!.detail.eventId]);
    // the second was never sent
    expect(eventBridge.commandCalls(PutEventsCommand).map((c) => idsOf(c.args[0].input))).toEqual([
      [first!.detail.eventId],
    ]);
  });

  it.each([
    ['ThrottlingException', 400],
    ['InternalException', 500],
    ['ServiceUnavailable', 503],
  ])('survives a whole request failing with %s (%i)', async (name, status) => {
    eventBridge
      .on(PutEventsCommand)
      .rejectsOnce(awsError(name, status))
      .rejectsOnce(awsError(name, status))
      .callsFake((input: PutEventsCommandInput) => accepted(input.Entries));
    const events = visitEvents(3);
    await sink().publish(events);
    const calls = eventBridge.commandCalls(PutEventsCommand);
    expect(calls).toHaveLength(3);
    expect(idsOf(calls[2]!.args[0].input)).toEqual(events.map((e) => e.detail.eventId));
    expect(sleeps).toHaveLength(2);
  });

  it('survives a network error (no HTTP response)', async () => {
    const reset = Object.assign(new Error('socket hang up'), { name: 'Error', code: 'ECONNRESET' });
    eventBridge
      .on(PutEventsCommand)
      .rejectsOnce(reset)
      .callsFake((input: PutEventsCommandInput) => accepted(input.Entries));
    await sink().publish(visitEvents(1));
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(2);
  });

  it('uses capped exponential backoff with full jitter', async () => {
    eventBridge.on(PutEventsCommand).rejects(awsError('ThrottlingException', 400));
    const publisher = sink({ maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 1000, random: () => 0.999 });
    await expect(publisher.publish(visitEvents(1))).rejects.toThrow(PublishError);
    expect(sleeps).toEqual([99, 199, 399, 799, 999]);
    sleeps = [];
    const lowJitter = sink({ maxAttempts: 3, baseDelayMs: 100, random: () => 0.25 });
    await expect(lowJitter.publish(visitEvents(1))).rejects.toThrow(PublishError);
    expect(sleeps).toEqual([25, 50]);
  });

  it('after maxAttempts throws PublishError naming the failed eventIds, never the contents', async () => {
    const events = visitEvents(4);
    const stuck = events[1]!.detail.eventId;
    eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => ({
      FailedEntryCount: 1,
      Entries: idsOf(input).map((id) =>
        id === stuck ? { ErrorCode: 'ThrottlingException', ErrorMessage: 'slow down' } : { EventId: 'ok' },
      ),
    }));
    const error = await sink({ maxAttempts: 4 })
      .publish(events)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(PublishError);
    const publishError = error as PublishError;
    expect(publishError.failedEventIds).toEqual([stuck]);
    expect(publishError.attempts).toBe(4);
    expect(publishError.message).toContain(stuck);
    expect(publishError.message).toContain('ThrottlingException');
    expect(publishError.message).not.toContain('Secret Door Name');
    expect(publishError.message).not.toContain('M1');
    const calls = eventBridge.commandCalls(PutEventsCommand).map((c) => idsOf(c.args[0].input));
    expect(calls.slice(1)).toEqual([[stuck], [stuck], [stuck]]);
  });

  it('does not retry entries rejected permanently, and still delivers the others', async () => {
    const events = visitEvents(3);
    const bad = events[0]!.detail.eventId;
    eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => ({
      FailedEntryCount: 1,
      Entries: idsOf(input).map((id) =>
        id === bad ? { ErrorCode: 'NotAuthorizedForSourceException', ErrorMessage: 'no' } : { EventId: 'ok' },
      ),
    }));
    await expect(sink().publish(events)).rejects.toMatchObject({
      name: 'PublishError',
      failedEventIds: [bad],
      attempts: 1,
    });
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('does not retry a request refused for good (access denied), and chains the cause', async () => {
    const denied = awsError('AccessDeniedException', 400);
    eventBridge.on(PutEventsCommand).rejects(denied);
    const events = visitEvents(2);
    const error = (await sink()
      .publish(events)
      .catch((e: unknown) => e)) as PublishError;
    expect(error).toBeInstanceOf(PublishError);
    expect(error.cause).toBe(denied);
    expect(error.failedEventIds).toEqual(events.map((e) => e.detail.eventId));
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(1);
  });

  it('treats a response that does not account for every entry as not delivered', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolvesOnce({ FailedEntryCount: 0, Entries: [{ EventId: 'only-one' }] })
      .callsFake((input: PutEventsCommandInput) => accepted(input.Entries));
    await sink().publish(visitEvents(2));
    expect(eventBridge.commandCalls(PutEventsCommand).map((c) => c.args[0].input.Entries?.length)).toEqual([
      2, 2,
    ]);
  });
});

describe('EventBridgeSink oversized events', () => {
  it('never sends an event too large even alone, delivers the rest, then throws PublishError', async () => {
    eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => accepted(input.Entries));
    const [huge] = largeEvents(1, 300_000);
    const small = visitEvents(2);
    const error = (await sink()
      .publish([small[0]!, huge!, small[1]!])
      .catch((e: unknown) => e)) as PublishError;
    expect(error).toBeInstanceOf(PublishError);
    expect(error.oversizedEventIds).toEqual([huge!.detail.eventId]);
    expect(error.failedEventIds).toEqual([huge!.detail.eventId]);
    expect(error.message).toContain('larger than the PutEvents limit');
    const sent = eventBridge.commandCalls(PutEventsCommand).flatMap((c) => idsOf(c.args[0].input));
    expect(sent).toEqual(small.map((e) => e.detail.eventId));
  });
});

describe('isRetryableRequestError', () => {
  it.each([
    [awsError('ThrottlingException', 400), true],
    [awsError('InternalException', 500), true],
    [awsError('TooManyRequests', 429), true],
    [Object.assign(new Error('x'), { name: 'TimeoutError' }), true],
    [awsError('AccessDeniedException', 400), false],
    [awsError('ResourceNotFoundException', 400), false],
    [awsError('ValidationException', 400), false],
    [new TypeError('undefined is not a function'), false],
    ['a string', false],
  ])('%o -> %s', (error, retryable) => {
    expect(isRetryableRequestError(error)).toBe(retryable);
  });
});
