/**
 * `events replay --archive` at the process level, as a user runs it: the CLI as a child process
 * against a stub speaking the AWS JSON protocol (archive replays cannot be produced locally; the
 * request shapes are checked in test/unit/event-tooling/archive-replay.test.ts and against
 * moto_server outside npm test). Progress lines, exit 0 on COMPLETED; --bus alone finds its
 * archive, --detach leaves the replay running; Ctrl-C (SIGINT) sends CancelReplay, says so, waits
 * for CANCELLED and exits 130.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useCli } from './events-cli';

const cli = useCli();

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
