/**
 * `events match` as a user runs it: the CLI as a child process, with the pattern as a rule's
 * description and as a file, and events as a rule target receives them, as events-file lines and
 * as PutEvents entries. Exit 0 every event matches, 1 one does not (the first failing field named),
 * 2 a bad pattern or event file.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvents, readPattern } from '../../../cli/commands/events/match';
import { sampleEvents } from '../../../cli/sample-events';
import { toEventBridgeEvent, toPutEventsEntry } from '../../../event-tooling/eventbridge-event';
import { type BridgeEvent, DETAIL_TYPES } from '../../../lambdas/events/catalog';
import { runCli } from '../../support/cli-process';

let dir: string;
let failed: BridgeEvent[];
const file = async (name: string, text: string) => {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gym-bridge-events-match-'));
  failed = await sampleEvents({ detailType: DETAIL_TYPES.PaymentFailed, count: 2, seed: 3 });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('events match', () => {
  it('reads events in the three forms and a pattern from a rule description', async () => {
    // Prepare
    const [one, two] = failed;
    const delivered = toEventBridgeEvent(one!, { source: 'gym-bridge' });
    const line = {
      source: 'gym-bridge',
      detailType: two!.detailType,
      time: two!.detail.occurredAt,
      detail: two!.detail,
    };
    const entry = toPutEventsEntry(one!, 'gym-bridge.dev');
    const events = await file(
      'mixed.jsonl',
      [delivered, line, entry].map((e) => JSON.stringify(e)).join('\n'),
    );
    const rule = await file(
      'rule.json',
      JSON.stringify({ Name: 'r', EventPattern: JSON.stringify({ source: ['gym-bridge'] }) }),
    );
    // Act
    const read = readEvents(events);
    const pattern = readPattern(rule);
    // Assess
    expect(read.map((e) => e['detail-type'])).toEqual(['Payment Failed', 'Payment Failed', 'Payment Failed']);
    expect(read.map((e) => e.source)).toEqual(['gym-bridge', 'gym-bridge', 'gym-bridge.dev']);
    expect(read[2]!.detail).toEqual(one!.detail);
    expect(pattern).toEqual({ source: ['gym-bridge'] });
  });

  it('exits 0 when every event matches, 1 naming the first failing field, 2 on a bad pattern', async () => {
    // Prepare
    const events = await file(
      'failed.jsonl',
      failed.map((e) => JSON.stringify(toEventBridgeEvent(e, { source: 'gym-bridge' }))).join('\n'),
    );
    const reason = failed[0]!.detailType === 'Payment Failed' ? failed[0]!.detail.reason : '';
    const other = reason === 'dishonoured' ? 'declined' : 'dishonoured';
    const wants = (r: string) =>
      JSON.stringify({ 'detail-type': ['Payment Failed'], detail: { reason: [r] } });
    // Act
    const [yes, no, bad] = await Promise.all([
      runCli(['events', 'match', '--pattern', wants(reason), '--event', events]),
      runCli([
        'events',
        'match',
        '--pattern',
        await file('p.json', wants(other)),
        '--event',
        events,
        '--json',
      ]),
      runCli(['events', 'match', '--pattern', '{"detail":{"reason":[{"nope":1}]}}', '--event', events]),
    ]);
    // Assess
    expect(yes.code).toBe(0);
    expect(yes.stdout).toContain(
      `event 1: Payment Failed ${failed[0]!.detail.eventId.slice(0, 12)}: matches`,
    );
    expect(no.code).toBe(1);
    const first = JSON.parse(no.stdout.split('\n')[0]!);
    expect(first).toMatchObject({
      event: 1,
      matches: false,
      mismatch: { path: 'detail.reason', expected: [other], actual: reason },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("invalid event pattern at detail.reason[0].nope: unknown matcher 'nope'");
  });

  it('exits 2 naming the depth on a pattern 20,000 levels deep; answers for arrays 20,000 deep in events', async () => {
    // Prepare: the JSON is written by hand (JSON.stringify recurses, and would overflow)
    const pattern = `${'{"k":'.repeat(20_000)}{"x":["v"]}${'}'.repeat(20_000)}`;
    const line = (value: string) =>
      `{"source":"gym-bridge","detailType":"Member Visit Recorded","detail":{"x":${'['.repeat(20_000)}"${value}"${']'.repeat(20_000)}}}`;
    const deepEvents = await file('deep.jsonl', `${line('v')}\n${line('w')}\n`);
    const args = (p: string, ...more: string[]) => [
      'events',
      'match',
      '--pattern',
      p,
      '--event',
      deepEvents,
      ...more,
    ];
    // Act
    const [tooDeep, text, json] = await Promise.all([
      runCli(args(await file('deep-pattern.json', pattern))),
      runCli(args('{"detail":{"x":["v"]}}')),
      runCli(args('{"detail":{"x":["v"]}}', '--json')),
    ]);
    // Assess
    expect(tooDeep.code).toBe(2);
    expect(tooDeep.stderr).toMatch(/invalid event pattern at k\.k\.k.*: nested deeper than 1000 levels/);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('event 1: Member Visit Recorded: matches');
    expect(text.stdout).toContain('event 2: Member Visit Recorded: does not match');
    expect(text.stdout).toContain('the event has (a list nested 20000 levels deep)');
    expect(json.code).toBe(1);
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toMatchObject([
      { event: 1, matches: true },
      {
        event: 2,
        matches: false,
        mismatch: { path: 'detail.x', actual: '(a list nested 20000 levels deep)' },
      },
    ]);
  }, 120_000);
});
