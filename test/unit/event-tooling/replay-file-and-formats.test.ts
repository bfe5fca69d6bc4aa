/**
 * The pieces of `events sample` and `events replay --file` that need no process: the events-file
 * parser (line numbers, blank and CRLF lines, a torn last line, what is refused), the EventBridge
 * shapes of an event (as a rule target receives it, as a PutEvents entry), the --from/--to
 * parser, and sendEvents' chunks and sources (through EventBridgeSink, SDK mocked).
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { CliUsageError } from '../../../cli/args';
import { parseInstant } from '../../../cli/commands/events';
import {
  eventBridgeTime,
  toEventBridgeEvent,
  toPutEventsEntry,
  uuidFrom,
} from '../../../event-tooling/eventbridge-event';
import {
  EventsFileError,
  parseEventsFile,
  ReplaySendError,
  sendEvents,
} from '../../../event-tooling/events-file';
import { exampleEvents } from '../../../event-tooling/examples';
import { DETAIL_TYPES } from '../../../lambdas/events/catalog';

const examples = exampleEvents();
const visit = examples[DETAIL_TYPES.MemberVisitRecorded];
const failed = examples[DETAIL_TYPES.PaymentFailed];
const line = (e: typeof visit, source = 'gym-bridge') =>
  JSON.stringify({ source, detailType: e.detailType, time: e.detail.occurredAt, detail: e.detail });

describe('parseEventsFile', () => {
  it('reads every line, skipping blank ones and CRs, with line numbers', () => {
    const parsed = parseEventsFile(`${line(visit)}\r\n\n${line(failed, 'gym-bridge.dev')}\n`);
    expect(parsed.events.map((e) => [e.line, e.source, e.event.detailType])).toEqual([
      [1, 'gym-bridge', 'Member Visit Recorded'],
      [3, 'gym-bridge.dev', 'Payment Failed'],
    ]);
    expect(parsed.tornLastLine).toBeUndefined();
  });

  it('a torn last line (no newline, not JSON) is reported, not an error; a torn line elsewhere is', () => {
    const torn = `${line(visit)}\n${line(failed).slice(0, 40)}`;
    expect(parseEventsFile(torn)).toMatchObject({ tornLastLine: 2, events: [{ line: 1 }] });
    expect(() => parseEventsFile(`${line(visit).slice(0, 40)}\n${line(failed)}\n`, 'f.jsonl')).toThrow(
      /^f\.jsonl, line 1: not JSON/,
    );
    // A bad last line WITH its newline was written whole: an error, not a torn write.
    expect(() => parseEventsFile(`${line(visit)}\n{"source":\n`)).toThrow(EventsFileError);
  });

  it('refuses what is not an event of the catalog, naming the line and never the values', () => {
    const bad = (text: string) => {
      try {
        parseEventsFile(`${line(visit)}\n${text}\n`);
      } catch (err) {
        expect(err).toBeInstanceOf(EventsFileError);
        expect((err as EventsFileError).line).toBe(2);
        return (err as Error).message;
      }
      throw new Error('not refused');
    };
    expect(bad('[1,2]')).toMatch(/line 2: not a JSON object/);
    expect(bad(JSON.stringify({ detailType: 'Payment Failed', detail: failed.detail }))).toMatch(
      /no 'source'/,
    );
    expect(bad(line(visit, 'aws.events'))).toMatch(/source 'aws\.events' is not usable: 'aws\.' is reserved/);
    expect(bad(JSON.stringify({ source: 'gym-bridge', detailType: 'Payment Faild', detail: {} }))).toMatch(
      /unknown detail-type/,
    );
    const noAmount = { ...failed.detail, paymentId: 12 };
    const message = bad(
      JSON.stringify({ source: 'gym-bridge', detailType: failed.detailType, detail: noAmount }),
    );
    expect(message).toMatch(/line 2: invalid 'Payment Failed' event .*paymentId/);
    expect(message).not.toContain('M10042');
  });
});

describe('EventBridge shapes', () => {
  it('as a rule target receives it: the envelope fields in order, time to the second, a stable UUID', () => {
    const event = toEventBridgeEvent(failed, {
      source: 'gym-bridge.dev',
      account: '111122223333',
      region: 'eu-west-1',
    });
    expect(Object.keys(event)).toEqual([
      'version',
      'id',
      'detail-type',
      'source',
      'account',
      'time',
      'region',
      'resources',
      'detail',
    ]);
    expect(event).toMatchObject({
      version: '0',
      'detail-type': 'Payment Failed',
      source: 'gym-bridge.dev',
      account: '111122223333',
      region: 'eu-west-1',
      resources: [],
      time: eventBridgeTime(failed.detail.occurredAt),
      detail: failed.detail,
    });
    expect(event.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(event.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(toEventBridgeEvent(failed, { source: 'gym-bridge.dev' }).id).toBe(event.id);
    expect(uuidFrom('a')).not.toBe(uuidFrom('b'));
    expect(toEventBridgeEvent(failed, { source: 's', replayName: 'r1' })['replay-name']).toBe('r1');
  });

  it('as a PutEvents entry: what the publisher sends, Time as ISO text', () => {
    expect(toPutEventsEntry(visit, 'gym-bridge', 'bus-1')).toEqual({
      Source: 'gym-bridge',
      DetailType: 'Member Visit Recorded',
      Detail: JSON.stringify(visit.detail),
      EventBusName: 'bus-1',
      Time: visit.detail.occurredAt,
    });
    expect(toPutEventsEntry(visit, 'gym-bridge')).not.toHaveProperty('EventBusName');
  });
});

describe('parseInstant (--from, --to)', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  it('takes ISO 8601 with Z or an offset, a UTC date, and now', () => {
    expect(parseInstant('from', '2026-11-20T06:30:00Z')).toBe(Date.parse('2026-11-20T06:30:00Z'));
    expect(parseInstant('from', '2026-11-20T06:30:00.250+10:00')).toBe(
      Date.parse('2026-11-19T20:30:00.250Z'),
    );
    expect(parseInstant('from', '2026-11-20')).toBe(Date.parse('2026-11-20T00:00:00Z'));
    expect(parseInstant('to', 'now', now)).toBe(now);
  });
  it('refuses zone-less times, days the calendar does not have, and garbage', () => {
    for (const value of [
      '2026-11-20T06:30:00',
      '2026-02-30',
      '2026-02-29T00:00:00+01:00',
      '2026-13-01',
      'yesterday',
      '',
    ])
      expect(() => parseInstant('from', value), value).toThrow(CliUsageError);
    expect(() => parseInstant('from', undefined)).toThrow(/--from TIME is required/);
  });
});

describe('sendEvents', () => {
  const mock = mockClient(EventBridgeClient);
  // The SDK's client is shared with the worker's next test files (vitest.config.ts isolate: false).
  afterAll(() => mock.restore());
  beforeEach(() => {
    mock.reset();
    mock.on(PutEventsCommand).callsFake((input: { Entries: unknown[] }) => ({
      FailedEntryCount: 0,
      Entries: input.Entries.map((_, i) => ({ EventId: `e${i}` })),
    }));
  });
  const client = new EventBridgeClient({ region: 'us-east-1' });
  const fileEvents = (n: number, source = 'gym-bridge') =>
    Array.from({ length: n }, (_, i) => ({ line: i + 1, source, event: i % 2 ? visit : failed }));

  it('chunks keep file order and one source each; PutEvents of at most 10; progress after each chunk', async () => {
    const events = [...fileEvents(25), ...fileEvents(3, 'gym-bridge.dev')];
    const progress: string[] = [];
    const sent = await sendEvents(events, {
      client,
      busName: 'b',
      chunkSize: 20,
      onProgress: (n, total) => progress.push(`${n}/${total}`),
    });
    expect(sent).toBe(28);
    expect(progress).toEqual(['20/28', '25/28', '28/28']);
    const requests = mock.commandCalls(PutEventsCommand).map((c) => c.args[0].input.Entries ?? []);
    expect(requests.every((entries) => entries.length <= 10)).toBe(true);
    expect(requests.flat().map((e) => e.Source)).toEqual([
      ...Array(25).fill('gym-bridge'),
      ...Array(3).fill('gym-bridge.dev'),
    ]);
    expect(requests.flat().every((e) => e.EventBusName === 'b')).toBe(true);
  });

  it('--event-source replaces every source; a chunk that keeps failing says how many were sent', async () => {
    await sendEvents(fileEvents(3, 'x'), { client, busName: 'b', sourceOverride: 'gym-bridge.dev' });
    expect(
      mock.commandCalls(PutEventsCommand).flatMap((c) => c.args[0].input.Entries!.map((e) => e.Source)),
    ).toEqual(['gym-bridge.dev', 'gym-bridge.dev', 'gym-bridge.dev']);
    mock.reset();
    let call = 0;
    mock.on(PutEventsCommand).callsFake((input: { Entries: unknown[] }) => {
      call++;
      return {
        FailedEntryCount: call === 1 ? 0 : input.Entries.length,
        Entries: input.Entries.map((_, i) =>
          call === 1 ? { EventId: `e${i}` } : { ErrorCode: 'AccessDeniedException', ErrorMessage: 'no' },
        ),
      };
    });
    const error = await sendEvents(fileEvents(15), { client, busName: 'b', chunkSize: 10 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ReplaySendError);
    expect(error).toMatchObject({ sent: 10, total: 15 });
    expect((error as Error).message).toMatch(/^10 of 15 events sent, then: 5 of 5 events not delivered/);
  });
});
