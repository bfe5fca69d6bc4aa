/**
 * `events sample` as a user runs it: the CLI as a child process. The eventbridge format is what a
 * rule target receives (parsed by Powertools Parser's EventBridge envelope with the catalog
 * schemas, and by the @gym-bridge/events event schemas); detail and putevents formats; a bad --type
 * exits 2 listing the detail-types; --help, and a flag of another mode exits 2.
 */
import { parse } from '@aws-lambda-powertools/parser';
import { EventBridgeEnvelope } from '@aws-lambda-powertools/parser/envelopes/eventbridge';
import { EVENT_SCHEMAS, EVENTBRIDGE_EVENT_SCHEMAS } from '@gym-bridge/events';
import { describe, expect, it } from 'vitest';
import { ALL_DETAIL_TYPES, DETAIL_TYPES, validateEvent } from '../../../lambdas/events/catalog';
import { useCli } from './events-cli';

const cli = useCli();
const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

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
