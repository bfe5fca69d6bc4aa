/**
 * `events replay --file` as a user runs it: the CLI as a child process, to the local EventBridge
 * endpoint over a real socket, with the real AWS SDK in the child configured only by the
 * environment. Every event arrives once with its detail, detail-type and time, progress "sent N of
 * M"; entries the endpoint fails are retried; --type, --event-source and --pattern filter; a
 * malformed line stops it before anything is sent, naming the line; a torn last line is skipped
 * with a note; --dry-run sends nothing; a missing bus exits 2.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sampleEvents } from '../../../cli/sample-events';
import { type BridgeEvent, DETAIL_TYPES } from '../../../lambdas/events/catalog';
import { JsonLinesFileSink } from '../../../lambdas/events/json-lines-file-sink';
import { type LocalEventBridge, startLocalEventBridge } from '../../../local-aws/local-eventbridge';
import { useCli } from './events-cli';

let dir: string;
const cli = useCli();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gym-bridge-events-cli-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('events replay --file', () => {
  let bridge: LocalEventBridge;
  let env: Record<string, string>;
  let file: string;
  let published: BridgeEvent[];

  beforeAll(async () => {
    bridge = await startLocalEventBridge({ buses: ['local-bus'] });
    env = {
      AWS_ENDPOINT_URL_EVENTBRIDGE: bridge.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    };
    // An events file as `poll --events-file` writes it, with events of the real engine.
    file = join(dir, 'events.jsonl');
    const sink = new JsonLinesFileSink(file, { source: 'gym-bridge' });
    const visits = await sampleEvents({ detailType: DETAIL_TYPES.MemberVisitRecorded, count: 17 });
    const failed = await sampleEvents({ detailType: DETAIL_TYPES.PaymentFailed, count: 6 });
    published = [...visits.slice(0, 9), ...failed, ...visits.slice(9)];
    await sink.publish(published.slice(0, 12));
    await sink.publish(published.slice(12));
  });
  afterAll(() => bridge.close());
  afterEach(() => {
    bridge.events.length = 0;
    bridge.faults.reset();
  });

  it('puts every event on the bus once, in batches of 10 with retries, with progress', async () => {
    // Prepare: the endpoint fails a few entries (retried by the sink)
    bridge.faults.failNext(3);
    const requestsBefore = bridge.stats.putEventsRequests;
    // Act
    const run = cli(['events', 'replay', '--file', file, '--bus', 'local-bus'], env);
    // Assess
    expect(await run.exit).toBe(0);
    expect(run.stdout()).toMatch(/sending 23 events to local-bus/);
    expect(run.stdout()).toMatch(/sent 23 of 23/);
    expect(run.stdout()).toMatch(/done: 23 events put on local-bus/);
    expect(bridge.events.map((e) => (e.detail as { eventId: string }).eventId).sort()).toEqual(
      published.map((e) => e.detail.eventId).sort(),
    );
    for (const received of bridge.events) {
      const original = published.find(
        (e) => e.detail.eventId === (received.detail as { eventId: string }).eventId,
      )!;
      expect(received).toMatchObject({
        eventBusName: 'local-bus',
        source: 'gym-bridge',
        detailType: original.detailType,
        detail: original.detail,
        time: new Date(original.detail.occurredAt).toISOString(),
      });
    }
    expect(bridge.stats.failedEntries).toBe(3);
    // 23 events: 3 requests of at most 10, plus one retry request for the failed entries
    expect(bridge.stats.putEventsRequests - requestsBefore).toBe(4);
  }, 30_000);

  it('--type and --event-source: only those events, with the other source', async () => {
    const run = cli(
      [
        'events',
        'replay',
        '--file',
        file,
        '--bus',
        'local-bus',
        '--type',
        'Payment Failed',
        '--event-source',
        'gym-bridge.dev',
      ],
      env,
    );
    expect(await run.exit).toBe(0);
    expect(run.stdout()).toMatch(/sending 6 events to local-bus \(17 left out by --type\/--pattern\)/);
    expect(bridge.events).toHaveLength(6);
    expect(new Set(bridge.events.map((e) => `${e.detailType}|${e.source}`))).toEqual(
      new Set(['Payment Failed|gym-bridge.dev']),
    );
  }, 30_000);

  it('--pattern: only the events an EventBridge pattern matches (offline), with the source they are sent with', async () => {
    const pattern = {
      source: ['gym-bridge.dev'],
      'detail-type': ['Payment Failed'],
      detail: { reason: ['dishonoured'] },
    };
    const expected = published.filter(
      (e) => e.detailType === 'Payment Failed' && (e.detail as { reason?: string }).reason === 'dishonoured',
    );
    const run = cli(
      [
        'events',
        'replay',
        '--file',
        file,
        '--bus',
        'local-bus',
        '--pattern',
        JSON.stringify(pattern),
        '--stage',
        'dev',
      ],
      env,
    );
    const none = cli(
      ['events', 'replay', '--file', file, '--bus', 'local-bus', '--pattern', JSON.stringify(pattern)],
      env,
    );
    const invalid = cli(
      [
        'events',
        'replay',
        '--file',
        file,
        '--bus',
        'local-bus',
        '--pattern',
        '{"detail": {"reason": "dishonoured"}}',
      ],
      env,
    );
    expect(await run.exit).toBe(0);
    expect(await none.exit).toBe(0);
    expect(await invalid.exit).toBe(2);
    expect(expected.length).toBeGreaterThan(0);
    expect(bridge.events.map((e) => (e.detail as { eventId: string }).eventId).sort()).toEqual(
      expected.map((e) => e.detail.eventId).sort(),
    );
    expect(none.stdout()).toMatch(/nothing to send: 23 events in .* \(23 left out by --type\/--pattern\)/);
    expect(invalid.stderr()).toMatch(/--pattern: invalid event pattern at detail\.reason/);
  }, 30_000);

  it('a malformed line stops it before anything is sent, naming the line', async () => {
    const text = await readFile(file, 'utf8');
    const rows = text.split('\n');
    const broken = join(dir, 'broken.jsonl');
    const invalid = join(dir, 'invalid.jsonl');
    // line 15 not JSON; in the other file line 4's detail misses its eventId
    await writeFile(
      broken,
      [...rows.slice(0, 14), '{"source": "gym-bridge", "detailType":', ...rows.slice(14)].join('\n'),
    );
    const record = JSON.parse(rows[3]!) as { detail: Record<string, unknown> };
    delete record.detail.eventId;
    await writeFile(invalid, [...rows.slice(0, 3), JSON.stringify(record), ...rows.slice(4)].join('\n'));
    const requestsBefore = bridge.stats.putEventsRequests;
    // Act
    const a = cli(['events', 'replay', '--file', broken, '--bus', 'local-bus'], env);
    const b = cli(['events', 'replay', '--file', invalid, '--bus', 'local-bus'], env);
    // Assess
    expect(await a.exit).toBe(2);
    expect(await b.exit).toBe(2);
    expect(a.stderr()).toMatch(/broken\.jsonl, line 15: not JSON/);
    expect(b.stderr()).toMatch(/invalid\.jsonl, line 4: invalid 'Member Visit Recorded' event: eventId/);
    expect(a.stderr()).toMatch(/nothing was sent/);
    expect(bridge.stats.putEventsRequests).toBe(requestsBefore);
    expect(bridge.events).toHaveLength(0);
  }, 30_000);

  it('a torn last line (a crash mid-write) is skipped with a note; the rest is sent', async () => {
    const torn = join(dir, 'torn.jsonl');
    const text = await readFile(file, 'utf8');
    await writeFile(torn, `${text}{"source":"gym-bridge","detailType":"Member Vis`);
    const run = cli(['events', 'replay', '--file', torn, '--bus', 'local-bus'], env);
    expect(await run.exit).toBe(0);
    expect(run.stderr()).toMatch(/line 24: an incomplete last line \(a write cut short\), skipped/);
    expect(bridge.events).toHaveLength(23);
  }, 30_000);

  it('--dry-run sends nothing; a bus that does not exist exits 2', async () => {
    const dry = cli(['events', 'replay', '--file', file, '--bus', 'local-bus', '--dry-run'], env);
    const missing = cli(['events', 'replay', '--file', file, '--bus', 'no-such-bus'], env);
    expect(await dry.exit).toBe(0);
    expect(await missing.exit).toBe(2);
    expect(dry.stdout()).toMatch(/would send 23 of 23 events to local-bus/);
    expect(dry.stdout()).toMatch(/17 {2}Member Visit Recorded/);
    expect(missing.stderr()).toMatch(/event bus 'no-such-bus' does not exist/);
    expect(bridge.events).toHaveLength(0);
  }, 30_000);
});
