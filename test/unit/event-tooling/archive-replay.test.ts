/**
 * Archive replays (event-tooling/replay.ts) against a mocked EventBridge client: archive replays
 * cannot be produced locally (the local endpoint has no archives), so aws-sdk-client-mock stands
 * in for the service here (and moto_server cross-checks the same code outside npm test, see
 * docs/publishing.md). The request shapes (StartReplay: the archive ARN as EventSourceArn, the
 * archive's bus as Destination.Arn, the rules' ARNs as FilterArns, the window), the refusals (no
 * archive, another bus, a window outside retention or in the future, an unknown rule), progress
 * from EventLastReplayedTime, the terminal states, and cancellation.
 */
import {
  CancelReplayCommand,
  DescribeArchiveCommand,
  DescribeEventBusCommand,
  DescribeReplayCommand,
  type DescribeReplayCommandOutput,
  DescribeRuleCommand,
  EventBridgeClient,
  ListArchivesCommand,
  StartReplayCommand,
} from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  checkReplayWindow,
  defaultReplayName,
  findBusArchive,
  REPLAY_NAME,
  ReplayInputError,
  startArchiveReplay,
} from '../../../event-tooling/replay';
import { formatProgress, replayProgress, watchReplay } from '../../../event-tooling/replay-watch';

const mock = mockClient(EventBridgeClient);
// The SDK's client is shared with the worker's next test files (vitest.config.ts isolate: false).
afterAll(() => mock.restore());
const client = new EventBridgeClient({ region: 'eu-west-1' });

const ACCOUNT = '123456789012';
const BUS = 'gym-bridge-prod';
const BUS_ARN = `arn:aws:events:eu-west-1:${ACCOUNT}:event-bus/${BUS}`;
const ARCHIVE = 'GymBridgeprodEventsArchive1234';
const ARCHIVE_ARN = `arn:aws:events:eu-west-1:${ACCOUNT}:archive/${ARCHIVE}`;
const ruleArn = (name: string) => `arn:aws:events:eu-west-1:${ACCOUNT}:rule/${BUS}/${name}`;
const NOW = Date.parse('2026-11-23T12:00:00Z');
const FROM = Date.parse('2026-11-20T00:00:00Z');
const TO = Date.parse('2026-11-21T00:00:00Z');
const DAY = 86_400_000;

const notFound = (message: string) =>
  Object.assign(new Error(message), { name: 'ResourceNotFoundException' });

beforeEach(() => {
  mock.reset();
  mock.on(DescribeArchiveCommand, { ArchiveName: ARCHIVE }).resolves({
    ArchiveName: ARCHIVE,
    ArchiveArn: ARCHIVE_ARN,
    EventSourceArn: BUS_ARN,
    RetentionDays: 30,
    State: 'ENABLED',
    CreationTime: new Date(NOW - 90 * DAY),
  });
  mock.on(DescribeEventBusCommand, { Name: BUS }).resolves({ Name: BUS, Arn: BUS_ARN });
  mock.on(DescribeRuleCommand).callsFake((input: { Name: string; EventBusName: string }) => {
    if (input.EventBusName !== BUS || !['marketing', 'operations'].includes(input.Name))
      throw notFound(`Rule ${input.Name} does not exist on EventBus ${input.EventBusName}.`);
    return { Name: input.Name, Arn: ruleArn(input.Name), EventBusName: BUS };
  });
  mock.on(StartReplayCommand).resolves({
    ReplayArn: `arn:aws:events:eu-west-1:${ACCOUNT}:replay/r1`,
    State: 'STARTING',
  });
});

describe('startArchiveReplay', () => {
  it('StartReplay: the archive ARN, the window, its bus as destination, the rules as FilterArns', async () => {
    // Act
    const started = await startArchiveReplay(client, {
      archive: ARCHIVE_ARN,
      fromMs: FROM,
      toMs: TO,
      bus: BUS,
      rules: ['marketing', ruleArn('operations')],
      name: 'backfill-marketing',
      nowMs: NOW,
    });
    // Assess
    expect(mock.commandCalls(DescribeArchiveCommand)[0]!.args[0].input).toEqual({ ArchiveName: ARCHIVE });
    expect(mock.commandCalls(DescribeRuleCommand).map((c) => c.args[0].input)).toEqual([
      { Name: 'marketing', EventBusName: BUS },
      { Name: 'operations', EventBusName: BUS },
    ]);
    const calls = mock.commandCalls(StartReplayCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({
      ReplayName: 'backfill-marketing',
      Description: 'gym-bridge events replay',
      EventSourceArn: ARCHIVE_ARN,
      EventStartTime: new Date(FROM),
      EventEndTime: new Date(TO),
      Destination: { Arn: BUS_ARN, FilterArns: [ruleArn('marketing'), ruleArn('operations')] },
    });
    expect(started).toMatchObject({
      name: 'backfill-marketing',
      state: 'STARTING',
      destinationArn: BUS_ARN,
      warnings: [],
    });
  });

  it('without --bus and --rule: the archive bus, no FilterArns (every rule of the bus), a generated name', async () => {
    const started = await startArchiveReplay(client, {
      archive: ARCHIVE,
      fromMs: FROM,
      toMs: TO,
      nowMs: NOW,
    });
    const input = mock.commandCalls(StartReplayCommand)[0]!.args[0].input;
    expect(input.Destination).toEqual({ Arn: BUS_ARN });
    expect(input.ReplayName).toBe(started.name);
    expect(started.name).toMatch(/^gym-bridge-20261120T0000-20261121T0000-[0-9a-f]{4}$/);
    expect(mock.commandCalls(DescribeEventBusCommand)).toHaveLength(0);
  });

  it('--bus without --archive: the one archive of that bus (ListArchives by the bus ARN)', async () => {
    mock
      .on(ListArchivesCommand)
      .resolves({ Archives: [{ ArchiveName: ARCHIVE, State: 'ENABLED', EventSourceArn: BUS_ARN }] });
    await startArchiveReplay(client, { bus: BUS, fromMs: FROM, toMs: TO, nowMs: NOW, name: 'r' });
    expect(mock.commandCalls(ListArchivesCommand)[0]!.args[0].input).toEqual({ EventSourceArn: BUS_ARN });
    expect(mock.commandCalls(StartReplayCommand)[0]!.args[0].input).toMatchObject({
      EventSourceArn: ARCHIVE_ARN,
      Destination: { Arn: BUS_ARN },
    });
  });

  it('findBusArchive: none or several archives are refused, pages are followed', async () => {
    let answers: object[] = [];
    mock.on(ListArchivesCommand).callsFake(() => answers.shift());
    answers = [{ Archives: [] }];
    await expect(findBusArchive(client, BUS_ARN)).rejects.toThrow(/has no archive/);
    answers = [
      { Archives: [{ ArchiveName: 'a1', State: 'ENABLED' }], NextToken: 't' },
      { Archives: [{ ArchiveName: 'a2', State: 'ENABLED' }] },
    ];
    await expect(findBusArchive(client, BUS_ARN)).rejects.toThrow(
      /has 2 archives \(a1 ENABLED, a2 ENABLED\): choose one with --archive/,
    );
    expect(mock.commandCalls(ListArchivesCommand)[2]!.args[0].input).toEqual({
      EventSourceArn: BUS_ARN,
      NextToken: 't',
    });
    answers = [
      {
        Archives: [
          { ArchiveName: 'old', State: 'DISABLED' },
          { ArchiveName: 'a3', State: 'ENABLED' },
        ],
      },
    ];
    await expect(findBusArchive(client, BUS_ARN)).resolves.toBe('a3');
    await expect(startArchiveReplay(client, { fromMs: FROM, toMs: TO, nowMs: NOW })).rejects.toThrow(
      ReplayInputError,
    );
  });

  it('refuses what cannot work, before StartReplay: unknown archive, another bus, unknown rule', async () => {
    mock
      .on(DescribeArchiveCommand, { ArchiveName: 'nope' })
      .rejects(notFound('Archive nope does not exist.'));
    mock.on(DescribeEventBusCommand, { Name: 'other-bus' }).resolves({
      Name: 'other-bus',
      Arn: `arn:aws:events:eu-west-1:${ACCOUNT}:event-bus/other-bus`,
    });
    const base = { fromMs: FROM, toMs: TO, nowMs: NOW };
    await expect(startArchiveReplay(client, { ...base, archive: 'nope' })).rejects.toThrow(
      /archive 'nope' does not exist/,
    );
    await expect(startArchiveReplay(client, { ...base, archive: ARCHIVE, bus: 'other-bus' })).rejects.toThrow(
      /replays an archive only to that bus/,
    );
    await expect(
      startArchiveReplay(client, { ...base, archive: ARCHIVE, rules: ['typo-rule'] }),
    ).rejects.toThrow(/rule 'typo-rule' does not exist on bus 'gym-bridge-prod'/);
    await expect(
      startArchiveReplay(client, {
        ...base,
        archive: ARCHIVE,
        rules: [`arn:aws:events:eu-west-1:${ACCOUNT}:rule/other-bus/marketing`],
      }),
    ).rejects.toThrow(/belongs to bus 'other-bus'/);
    await expect(
      startArchiveReplay(client, { ...base, archive: ARCHIVE, name: 'has space' }),
    ).rejects.toThrow(ReplayInputError);
    expect(mock.commandCalls(StartReplayCommand)).toHaveLength(0);
  });

  it('an AWS error of StartReplay is passed on as it is (exit 1 in the CLI)', async () => {
    mock
      .on(StartReplayCommand)
      .rejects(
        Object.assign(new Error('Replay r already exists.'), { name: 'ResourceAlreadyExistsException' }),
      );
    await expect(
      startArchiveReplay(client, { archive: ARCHIVE, fromMs: FROM, toMs: TO, nowMs: NOW, name: 'r' }),
    ).rejects.toMatchObject({ name: 'ResourceAlreadyExistsException' });
  });
});

describe('checkReplayWindow', () => {
  const archive = {
    name: ARCHIVE,
    arn: ARCHIVE_ARN,
    eventSourceArn: BUS_ARN,
    retentionDays: 30,
    creationTime: new Date(NOW - 10 * DAY),
  };

  it('the window must be ordered, not in the future, and within retention', () => {
    expect(() => checkReplayWindow(archive, TO, FROM, NOW)).toThrow(/--from must be before --to/);
    expect(() => checkReplayWindow(archive, FROM, NOW + 60_000, NOW)).toThrow(/in the future/);
    expect(() => checkReplayWindow(archive, NOW - 31 * DAY, TO, NOW)).toThrow(
      /outside the retention of archive .* \(30 days/,
    );
    expect(() => checkReplayWindow({ ...archive, retentionDays: 0 }, NOW - 400 * DAY, TO, NOW)).not.toThrow();
  });

  it('warns about a window before the archive existed, and about the last minutes', () => {
    expect(checkReplayWindow(archive, NOW - 20 * DAY, NOW - DAY, NOW)).toEqual([
      expect.stringMatching(/archive was created at .*: nothing before that/),
    ]);
    expect(checkReplayWindow(archive, NOW - DAY, NOW, NOW)).toEqual([
      expect.stringMatching(/up to about 10 minutes/),
    ]);
  });

  it('generated names fit EventBridge rules', () => {
    const name = defaultReplayName(FROM, TO, () => 0.999);
    expect(name).toMatch(REPLAY_NAME);
    expect(name.length).toBeLessThanOrEqual(64);
  });
});

describe('watchReplay', () => {
  const describeAs = (states: Partial<DescribeReplayCommandOutput>[]) => {
    let i = 0;
    mock.on(DescribeReplayCommand).callsFake(() => {
      const out = states[Math.min(i++, states.length - 1)]!;
      return { ReplayName: 'r1', EventStartTime: new Date(FROM), EventEndTime: new Date(TO), ...out };
    });
  };
  const at = (share: number) => new Date(FROM + share * (TO - FROM));
  const noSleep = async () => undefined;

  it('reports progress from EventLastReplayedTime until COMPLETED, polling every interval', async () => {
    describeAs([
      { State: 'STARTING' },
      { State: 'RUNNING', EventLastReplayedTime: at(0.25) },
      { State: 'RUNNING', EventLastReplayedTime: at(0.5) },
      { State: 'COMPLETED', EventLastReplayedTime: at(1), ReplayEndTime: new Date(NOW) },
    ]);
    const sleeps: number[] = [];
    const seen: string[] = [];
    const result = await watchReplay(client, 'r1', {
      fromMs: FROM,
      toMs: TO,
      intervalMs: 5000,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      onProgress: (p) => seen.push(`${p.state} ${p.percent}`),
    });
    expect(result).toMatchObject({ state: 'COMPLETED', cancelRequested: false });
    expect(seen).toEqual(['STARTING 0', 'RUNNING 25', 'RUNNING 50', 'COMPLETED 100']);
    expect(sleeps).toEqual([5000, 5000, 5000]);
    expect(mock.commandCalls(DescribeReplayCommand)[0]!.args[0].input).toEqual({ ReplayName: 'r1' });
  });

  it('FAILED ends the watch with its StateReason', async () => {
    describeAs([
      { State: 'RUNNING', EventLastReplayedTime: at(0.1) },
      { State: 'FAILED', StateReason: 'Destination event bus was deleted' },
    ]);
    const result = await watchReplay(client, 'r1', { fromMs: FROM, toMs: TO, sleep: noSleep });
    expect(result.state).toBe('FAILED');
    expect(result.progress?.reason).toBe('Destination event bus was deleted');
    expect(formatProgress(result.progress!)).toMatch(
      /^FAILED\s+0\.0% \(Destination event bus was deleted\)$/,
    );
  });

  it('cancel: CancelReplay once, then watched until CANCELLED', async () => {
    describeAs([
      { State: 'RUNNING', EventLastReplayedTime: at(0.3) },
      { State: 'CANCELLING', EventLastReplayedTime: at(0.35) },
      { State: 'CANCELLED', EventLastReplayedTime: at(0.35), StateReason: 'Cancelled by user' },
    ]);
    mock
      .on(CancelReplayCommand)
      .resolves({ ReplayArn: `arn:aws:events:eu-west-1:${ACCOUNT}:replay/r1`, State: 'CANCELLING' });
    const cancel = new AbortController();
    const cancels: unknown[] = [];
    const result = await watchReplay(client, 'r1', {
      fromMs: FROM,
      toMs: TO,
      cancel: cancel.signal,
      onProgress: () => cancel.abort(), // Ctrl-C after the first progress line
      onCancel: (c) => cancels.push(c),
      sleep: noSleep,
    });
    expect(result).toMatchObject({ state: 'CANCELLED', cancelRequested: true });
    expect(mock.commandCalls(CancelReplayCommand).map((c) => c.args[0].input)).toEqual([
      { ReplayName: 'r1' },
    ]);
    expect(cancels).toEqual([{ sent: true, state: 'CANCELLING' }]);
  });

  it('a cancel refused (the replay had just completed) is said, and the final state is reported', async () => {
    describeAs([{ State: 'RUNNING' }, { State: 'COMPLETED' }]);
    mock.on(CancelReplayCommand).rejects(
      Object.assign(new Error('Replay r1 is not in a cancellable state.'), {
        name: 'IllegalStatusException',
      }),
    );
    const cancel = new AbortController();
    cancel.abort();
    const cancels: { sent: boolean; error?: string }[] = [];
    const result = await watchReplay(client, 'r1', {
      fromMs: FROM,
      toMs: TO,
      cancel: cancel.signal,
      onCancel: (c) => cancels.push(c),
      sleep: noSleep,
    });
    expect(result.state).toBe('COMPLETED');
    expect(cancels).toEqual([{ sent: false, error: expect.stringMatching(/^IllegalStatusException: /) }]);
  });

  it('detach stops watching at once', async () => {
    describeAs([{ State: 'RUNNING' }]);
    const detach = new AbortController();
    const result = await watchReplay(client, 'r1', {
      fromMs: FROM,
      toMs: TO,
      detach: detach.signal,
      onProgress: () => detach.abort(),
      sleep: noSleep,
    });
    expect(result.state).toBe('DETACHED');
    expect(mock.commandCalls(DescribeReplayCommand)).toHaveLength(1);
  });

  it('progress is clamped to the window and 100 only when COMPLETED', () => {
    const p = (out: Partial<DescribeReplayCommandOutput>) =>
      replayProgress(
        { $metadata: {}, EventStartTime: new Date(FROM), EventEndTime: new Date(TO), ...out },
        FROM,
        TO,
      );
    expect(p({ State: 'RUNNING', EventLastReplayedTime: new Date(TO + DAY) }).percent).toBe(100);
    expect(p({ State: 'RUNNING', EventLastReplayedTime: new Date(FROM - DAY) }).percent).toBe(0);
    expect(p({ State: 'COMPLETED' }).percent).toBe(100);
    expect(p({ State: 'RUNNING', EventLastReplayedTime: at(1 / 3) }).percent).toBe(33.3);
  });
});
