/**
 * `explain` against a local run: the CLI polls a sandbox into dynalite (a baseline, an hour, a
 * second poll), then explains a member and a prospect the second poll published events for, a
 * payment it published, and a member it never saw, as child processes over real sockets.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lifecycleSlot } from '../../../lambdas/engine/lifecycle/lifecycle-slot';
import { type Sandbox, startSandbox } from '../../../lambdas/sandbox';
import { localAwsEnv, runCli } from '../../support/cli-process';
import { type Dynalite, startDynalite } from '../../support/dynalite';

const SLOT_MINUTE = String(lifecycleSlot('club-1').offsetMs / 60_000).padStart(2, '0');

interface Line {
  detailType: string;
  detail: {
    eventId: string;
    source: string;
    subject: { memberNumber?: string; prospectNumber?: string };
    paymentId?: string;
    observedAt: string;
  };
}

describe('explain', () => {
  let db: Dynalite;
  let sandbox: Sandbox;
  let dir: string;
  let clubsFile: string;
  let events: Line[];
  const cli = (args: string[]) => runCli(args, localAwsEnv(db.endpoint));
  const explain = (...args: string[]) =>
    cli(['explain', '--clubs', clubsFile, '--club', 'club-1', '--table', 'explain', ...args]);

  beforeAll(async () => {
    db = await startDynalite();
    sandbox = await startSandbox({
      seed: 21,
      clubs: [{ clubId: 'club-1', timeZone: 'Australia/Sydney', open24h: true }],
      members: 120,
      historyDays: 2,
      activityScale: 40,
    });
    dir = await mkdtemp(join(tmpdir(), 'gym-bridge-explain-'));
    clubsFile = join(dir, 'clubs.json');
    await sandbox.writeClubsFile(clubsFile);
    const file = join(dir, 'events.jsonl');
    const poll = ['poll', '--clubs', clubsFile, '--table', 'explain', '--events-file', file, '--once'];
    expect((await cli([...poll, '--create-table'])).code).toBe(0);
    sandbox.advance(3 * 60 * 60_000);
    const second = await cli(poll);
    expect(second.code, second.stderr).toBe(0);
    events = (await readFile(file, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line);
  });
  afterAll(async () => {
    await sandbox.close();
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a member and a prospect: the snapshot, the events published for them by that poll, the source', async () => {
    // Prepare
    const member = events.find((e) => e.detail.source === 'members')!;
    const prospect = events.find((e) => e.detail.source === 'prospects')!;
    expect(member, 'a member event in the second poll').toBeDefined();
    expect(prospect, 'a prospect event in the second poll').toBeDefined();
    const number = member.detail.subject.memberNumber!;
    const mine = events.filter(
      (e) => e.detail.source === 'members' && e.detail.subject.memberNumber === number,
    );
    // Act
    const [json, words] = await Promise.all([
      explain('--member', number, '--json'),
      explain('--prospect', prospect.detail.subject.prospectNumber!),
    ]);
    // Assess
    expect(json.code, json.stderr).toBe(0);
    const facts = JSON.parse(json.stdout);
    expect(facts.published.map((e: { eventId: string }) => e.eventId).sort()).toEqual(
      mine
        .map((e) => e.detail.eventId)
        .slice(-5)
        .sort(),
    );
    expect(facts.published[0].observedAt).toBe(member.detail.observedAt);
    expect(facts.snapshot.fields).toHaveProperty('status');
    expect(facts.source).toMatchObject({
      source: 'members',
      polled: true,
      baselineDone: true,
      lookbackMs: 15 * 60_000,
    });
    expect(words.code, words.stderr).toBe(0);
    expect(words.stdout).toContain(prospect.detail.eventId);
    expect(words.stdout).toContain('a status that changes and changes back between two polls is not seen');
    expect(words.stdout).toMatch(/The prospects source last succeeded .*; its watermark is /);
    // The lifecycle part: tracking began with the first poll's (silent) evaluation.
    expect(facts.lifecycle).toMatchObject({
      enabled: true,
      settings: { inactiveDays: 14, expiringDays: 14, trialEndingHours: 24 },
      trackedSince: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
      // The club's evaluation hours start at its slot's minute (lifecycle-slot.ts).
      lastEvaluation: expect.stringMatching(new RegExp(`:${SLOT_MINUTE}:00\\.000Z$`)),
    });
    expect(words.stdout).toMatch(/Lifecycle events are tracked since .* \(club local time\)/);
    expect(words.stdout).toMatch(/The rules were last evaluated in the hour from /);
  });

  it('a payment: the Responses it was seen with and their eventIds; a member never seen; bad flags', async () => {
    // Prepare
    const payment = events.find(
      (e) => e.detailType === 'Payment Succeeded' || e.detailType === 'Payment Failed',
    )!;
    expect(payment, 'a payment event in the second poll').toBeDefined();
    // Act
    const [seen, unknown, both] = await Promise.all([
      explain('--payment', payment.detail.paymentId!),
      explain('--member', 'no-such-member'),
      explain('--member', '1', '--prospect', '2'),
    ]);
    // Assess
    expect(seen.code, seen.stderr).toBe(0);
    expect(seen.stdout).toContain(`${payment.detailType} ${payment.detail.eventId}`);
    expect(unknown.code).toBe(0);
    expect(unknown.stdout).toContain('The bridge has no snapshot of member no-such-member');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give exactly one of --member, --prospect, --payment');
  });
});
