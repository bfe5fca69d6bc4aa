/**
 * `events sample` and `events replay --file` as a user runs them: the CLI as a child process.
 *
 * - sample: the eventbridge format is what a rule target receives (parsed by Powertools Parser's
 *   EventBridge envelope with the catalog schemas, and by the @gym-bridge/events event schemas);
 *   detail and putevents formats; a bad --type exits 2 listing the detail-types.
 * - replay --archive, at the process level: progress lines, exit 0 on COMPLETED; Ctrl-C (SIGINT)
 *   sends CancelReplay, says so, waits for CANCELLED and exits 130. A stub speaking the AWS JSON
 *   protocol answers (archive replays cannot be produced locally; the request shapes are checked
 *   in test/unit/event-tooling/archive-replay.test.ts and against moto_server outside npm test).
 * - replay --file: to the local EventBridge endpoint over a real socket, with the real AWS SDK in
 *   the child configured only by the environment: every event arrives once with its detail,
 *   detail-type and time, progress "sent N of M"; entries the endpoint fails are retried; --type
 *   filters; a malformed line stops it before anything is sent, naming the line; a torn last line
 *   is skipped with a note; a missing bus exits 2.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from '@aws-lambda-powertools/parser';
import { EventBridgeEnvelope } from '@aws-lambda-powertools/parser/envelopes/eventbridge';
import { EVENT_SCHEMAS, EVENTBRIDGE_EVENT_SCHEMAS } from '@gym-bridge/events';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sampleEvents } from '../../../cli/sample-events';
import {
  ALL_DETAIL_TYPES,
  type BridgeEvent,
  DETAIL_TYPES,
  validateEvent,
} from '../../../lambdas/events/catalog';
import { JsonLinesFileSink } from '../../../lambdas/events/json-lines-file-sink';
import { type LocalEventBridge, startLocalEventBridge } from '../../../local-aws/local-eventbridge';
import { type CliProcess, killCli, spawnCli } from '../../support/cli-process';

let dir: string;
const running: CliProcess[] = [];
const cli = (args: string[], env: Record<string, string> = {}) => {
  const child = spawnCli(args, env);
  running.push(child);
  return child;
};
const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gym-bridge-events-cli-'));
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => killCli(c)));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('events sample', () => {
  it('eventbridge format: what a consumer Lambda receives, parsed by Powertools and the catalog schemas', async () => {
    // Act
    const run = cli([
      'events',
      'sample',
      '--type',
      'Payment Failed',
      '--count',
      '3',
      '--event-source',
      'gym-bridge.dev',
    ]);
    // Assess
    expect(await run.exit).toBe(0);
    const events = lines(run.stdout()).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events).toHaveLength(3);
    for (const event of events) {
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
      });
      expect(event.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      const detail = parse(event, EventBridgeEnvelope, EVENT_SCHEMAS[DETAIL_TYPES.PaymentFailed]);
      expect(detail.reason).toMatch(/^(declined|dishonoured|unknown-response)$/);
      expect(EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.PaymentFailed].safeParse(event).success).toBe(true);
      expect(() => validateEvent({ detailType: event['detail-type'], detail: event.detail })).not.toThrow();
      expect(event.time).toBe(`${(detail.occurredAt as string).slice(0, 19)}Z`);
    }
    expect(run.stderr()).toBe('');
  }, 30_000);

  it('detail and putevents formats', async () => {
    const detail = cli([
      'events',
      'sample',
      '--type',
      'Club Credentials Rejected',
      '--format',
      'detail',
      '--count',
      '2',
    ]);
    const entries = cli([
      'events',
      'sample',
      '--type',
      'Member Joined',
      '--format',
      'putevents',
      '--count',
      '2',
      '--bus',
      'gym-bridge-dev',
    ]);
    expect(await detail.exit).toBe(0);
    expect(await entries.exit).toBe(0);
    for (const line of lines(detail.stdout())) {
      const d = JSON.parse(line) as Record<string, unknown>;
      expect(() => validateEvent({ detailType: 'Club Credentials Rejected', detail: d })).not.toThrow();
    }
    for (const line of lines(entries.stdout())) {
      const entry = JSON.parse(line) as { Source: string; DetailType: string; Detail: string; Time: string };
      expect(entry).toMatchObject({
        Source: 'gym-bridge',
        DetailType: 'Member Joined',
        EventBusName: 'gym-bridge-dev',
      });
      const d = JSON.parse(entry.Detail) as { occurredAt: string };
      expect(() => validateEvent({ detailType: entry.DetailType, detail: d })).not.toThrow();
      expect(entry.Time).toBe(d.occurredAt);
    }
    // No provoked-failure log lines from the engine on stderr.
    expect(detail.stderr()).toBe('');
  }, 30_000);

  it('a bad --type exits 2 listing the detail-types; a missing one too', async () => {
    const bad = cli(['events', 'sample', '--type', 'Payment Faild']);
    const missing = cli(['events', 'sample']);
    expect(await bad.exit).toBe(2);
    expect(await missing.exit).toBe(2);
    for (const type of ALL_DETAIL_TYPES) expect(bad.stderr()).toContain(`  ${type}\n`);
    expect(missing.stderr()).toMatch(/--type is required/);
    expect(bad.stdout()).toBe('');
  });

  it('--help on the command and flags that belong to another mode', async () => {
    const help = cli(['events', '--help']);
    const sampleHelp = cli(['events', 'sample', '--help']);
    const misplaced = cli(['events', 'sample', '--type', 'Member Joined', '--archive', 'x']);
    expect(await help.exit).toBe(0);
    expect(await sampleHelp.exit).toBe(0);
    expect(await misplaced.exit).toBe(2);
    expect(help.stdout()).toMatch(/events sample --type TYPE/);
    expect(help.stdout()).toMatch(/replay-name/);
    expect(sampleHelp.stdout()).toMatch(/Club Source Unavailable\s+classAttendance enabled/);
    expect(misplaced.stderr()).toMatch(/does not take --archive/);
  });
});

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

/** A stub of the EventBridge archive-replay operations (AWS JSON 1.1), replaying for as long as told. */
async function replayStub(
  runningPolls: number,
): Promise<{ server: Server; endpoint: string; calls: string[] }> {
  const calls: string[] = [];
  const bus = 'arn:aws:events:us-east-1:123456789012:event-bus/gym-bridge-prod';
  const window = {
    EventStartTime: Date.parse('2026-11-20T00:00:00Z') / 1000,
    EventEndTime: Date.parse('2026-11-21T00:00:00Z') / 1000,
  };
  let polls = 0;
  let cancelled = false;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const op = String(req.headers['x-amz-target'] ?? '').replace('AWSEvents.', '');
      calls.push(`${op} ${body}`);
      const answers: Record<string, () => unknown> = {
        DescribeArchive: () => ({
          ArchiveName: 'archive-1',
          ArchiveArn: 'arn:aws:events:us-east-1:123456789012:archive/archive-1',
          EventSourceArn: bus,
          RetentionDays: 0,
          State: 'ENABLED',
        }),
        DescribeEventBus: () => ({ Name: 'gym-bridge-prod', Arn: bus }),
        ListArchives: () => ({
          Archives: [{ ArchiveName: 'archive-1', State: 'ENABLED', EventSourceArn: bus }],
        }),
        StartReplay: () => ({
          ReplayArn: 'arn:aws:events:us-east-1:123456789012:replay/r',
          State: 'STARTING',
        }),
        DescribeReplay: () => {
          polls++;
          const share = Math.min(polls / 4, 0.9);
          const state = cancelled ? 'CANCELLED' : polls > runningPolls ? 'COMPLETED' : 'RUNNING';
          return {
            ReplayName: 'r',
            State: state,
            ...window,
            EventLastReplayedTime:
              window.EventStartTime + share * (window.EventEndTime - window.EventStartTime),
          };
        },
        CancelReplay: () => {
          cancelled = true;
          return { State: 'CANCELLING' };
        },
      };
      const answer = answers[op];
      res.writeHead(answer ? 200 : 400, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(answer ? answer() : { __type: 'UnknownOperationException' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

describe('events replay --archive (the process: progress, exit codes, Ctrl-C)', () => {
  const envFor = (endpoint: string) => ({
    AWS_ENDPOINT_URL_EVENTBRIDGE: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
  const args = [
    'events',
    'replay',
    '--archive',
    'archive-1',
    '--from',
    '2026-11-20',
    '--to',
    '2026-11-21',
    '--interval',
    '1',
  ];

  it('follows the replay to COMPLETED: progress lines, exit 0', async () => {
    const stub = await replayStub(2);
    try {
      const run = cli([...args, '--name', 'r'], envFor(stub.endpoint));
      expect(await run.exit).toBe(0);
      expect(run.stdout()).toMatch(/replay r started: archive archive-1, .* EVERY rule of the bus/);
      expect(run.stdout()).toMatch(
        / r {2}RUNNING {4} 25\.0%, events up to 2026-11-20T06:00:00\.000Z replayed/,
      );
      expect(run.stdout()).toMatch(/ r {2}COMPLETED {2}100\.0%/);
      expect(run.stdout()).toMatch(/replay r completed/);
      const start = stub.calls.find((c) => c.startsWith('StartReplay'))!;
      expect(JSON.parse(start.slice('StartReplay '.length))).toMatchObject({
        ReplayName: 'r',
        EventSourceArn: 'arn:aws:events:us-east-1:123456789012:archive/archive-1',
        Destination: { Arn: 'arn:aws:events:us-east-1:123456789012:event-bus/gym-bridge-prod' },
      });
    } finally {
      stub.server.close();
    }
  }, 30_000);

  it('--bus alone finds its archive; --detach starts the replay and leaves it running', async () => {
    const stub = await replayStub(1000);
    try {
      const run = cli(
        [
          'events',
          'replay',
          '--bus',
          'gym-bridge-prod',
          '--from',
          '2026-11-20',
          '--to',
          '2026-11-21',
          '--name',
          'r',
          '--detach',
        ],
        envFor(stub.endpoint),
      );
      expect(await run.exit, run.stderr()).toBe(0);
      expect(run.stdout()).toMatch(/not followed \(--detach\): aws events describe-replay --replay-name r/);
      expect(stub.calls.map((c) => c.split(' ')[0])).toEqual([
        'DescribeEventBus',
        'ListArchives',
        'DescribeArchive',
        'StartReplay',
      ]);
    } finally {
      stub.server.close();
    }
  }, 30_000);

  it('Ctrl-C cancels the replay (CancelReplay, said on stderr) and exits 130 once it is CANCELLED', async () => {
    const stub = await replayStub(1000);
    try {
      const run = cli([...args, '--name', 'r'], envFor(stub.endpoint));
      await run.waitFor(/RUNNING/);
      run.child.kill('SIGINT');
      expect(await run.exit).toBe(130);
      expect(run.stderr()).toMatch(/cancelling replay r \(CancelReplay\)/);
      expect(run.stderr()).toMatch(/CancelReplay sent for r \(CANCELLING\)/);
      expect(run.stderr()).toMatch(/replay r CANCELLED/);
      expect(stub.calls.filter((c) => c.startsWith('CancelReplay'))).toEqual([
        'CancelReplay {"ReplayName":"r"}',
      ]);
    } finally {
      stub.server.close();
    }
  }, 30_000);
});
