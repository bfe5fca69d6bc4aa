/**
 * `explain` against a local run: the CLI polls a sandbox into dynalite (a baseline, three hours, a
 * second poll), then explains a member and a prospect the second poll published events for, a
 * payment it published, and a member it never saw, as child processes over real sockets; then the
 * subject of an event of each kind the second poll published (the kinds kept per subject give
 * their eventId, the others are said not to be kept, never "no event"), a payment only the silent
 * baseline saw (no eventId: none was published), and a member whose only events are not kept.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lifecycleSlot } from '../../../lambdas/lifecycle/club-lifecycle';
import { type Sandbox, startSandbox } from '../../../sandbox';
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
    response?: string;
  };
}

/**
 * A fixed-offset zone in which it is late afternoon now: the sandbox and the CLI run on the wall
 * clock, and three hours of a Sydney night (at 13:00 UTC) brought no new prospect some runs. From
 * 17:00 local on, every family comes in three hours. (`Etc/GMT-10` is UTC+10: the sign is POSIX's.)
 */
function eveningZone(nowMs = Date.now()): string {
  const offset = ((17 - new Date(nowMs).getUTCHours() + 36) % 24) - 12; // -12..+11 hours
  return offset === 0 ? 'Etc/GMT' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}

/** `work` over `items`, `size` at a time, results in order. */
async function inBatches<T, R>(
  items: readonly T[],
  size: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size)
    out.push(...(await Promise.all(items.slice(i, i + size).map(work))));
  return out;
}

/** Kinds whose eventId explain gives for the member, prospect or payment (docs/cli.md, explain). */
const KEPT_ON_SNAPSHOT = new Set([
  'Member Joined',
  'Member Status Changed',
  'Membership Cancelled',
  'Member Contact Preferences Changed',
  'Prospect Created',
  'Prospect Status Changed',
]);
const PAYMENTS = new Set(['Payment Succeeded', 'Payment Failed', 'Payment Refunded']);

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
      clubs: [{ clubId: 'club-1', timeZone: eveningZone(), open24h: true }],
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
      // The club's evaluation hours start at its slot's minute (`lifecycleSlot`, club-lifecycle.ts).
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
    expect(both.stderr).toContain('give at most one of --member, --prospect, --payment');
  });

  it('each kind of event the second poll published: its eventId where it is kept, "not kept" where not', async () => {
    // Prepare: one event of each kind, and the subject explain is asked about
    const byKind = new Map<string, Line>();
    const hasSubject = (e: Line) =>
      PAYMENTS.has(e.detailType) || e.detail.subject.memberNumber || e.detail.subject.prospectNumber;
    for (const e of events) if (!byKind.has(e.detailType) && hasSubject(e)) byKind.set(e.detailType, e);
    const kinds = [...byKind.keys()];
    // Each family, and two kinds of those kept on a snapshot and of those not kept (what three
    // evening hours of this sandbox hold). A member's own change is one of three kinds: some three
    // hours bring no join but a status change or a cancellation. Payment Failed or Refunded and Disbursement
    // Recorded come some runs, and go through the same paths. Lifecycle facts do not: the CLI polls
    // on the wall clock, whose lifecycle hour the baseline evaluated.
    const memberKinds = ['Member Joined', 'Member Status Changed', 'Membership Cancelled'];
    expect(
      kinds.filter((k) => memberKinds.includes(k)),
      'the second poll published a member change',
    ).not.toEqual([]);
    expect(kinds, 'the second poll published kinds of every family').toEqual(
      expect.arrayContaining([
        'Prospect Created',
        'Prospect Status Changed',
        'Payment Succeeded',
        'Member Visit Recorded',
        'POS Transaction Recorded',
      ]),
    );
    // Act: each subject explained, the payments also through their member (four kinds at a time:
    // each explain is a process)
    const runs = await inBatches([...byKind.values()], 4, async (e) => {
      const { memberNumber, prospectNumber } = e.detail.subject;
      const asked = PAYMENTS.has(e.detailType)
        ? ['--payment', e.detail.paymentId!]
        : memberNumber
          ? ['--member', memberNumber]
          : ['--prospect', prospectNumber!];
      const [out, member] = await Promise.all([
        explain(...asked),
        PAYMENTS.has(e.detailType) && memberNumber ? explain('--member', memberNumber) : undefined,
      ]);
      return { e, out, member };
    });
    // Assess
    for (const { e, out, member } of runs) {
      const label = `${e.detailType} ${e.detail.eventId}`;
      expect(out.code, `${label}: ${out.stderr}`).toBe(0);
      expect(out.stdout, label).not.toMatch(/No event is on record/);
      if (KEPT_ON_SNAPSHOT.has(e.detailType) || PAYMENTS.has(e.detailType)) {
        expect(out.stdout, label).toContain(e.detail.eventId);
        if (PAYMENTS.has(e.detailType)) expect(out.stdout, label).toContain(label);
        if (member) expect(member.stdout, `${label}, through its member`).toContain(label);
      } else {
        // A kind not kept per subject: said so, by name, and no other eventId claimed for it
        expect(out.stdout, label).toMatch(
          new RegExp(`It does not keep [^.]*${e.detailType}[^.]* per (member|prospect) \\(filed by a hash`),
        );
        expect(out.stdout, label).not.toContain(e.detail.eventId);
      }
    }
  }, 180_000);

  it('a payment only the silent baseline saw: no eventId, said to be recorded without an event', async () => {
    // Prepare: a payment of the history (before the baseline) that no event names
    const named = new Set(events.map((e) => e.detail.paymentId).filter(Boolean));
    const baselineOnly = sandbox
      .records('club-1', 'paymentHistory')
      .find(
        (p) =>
          !named.has(String(p.Id)) &&
          p.Response === 'Approved' &&
          !(p.Refund as { IsRefunded?: boolean })?.IsRefunded,
      );
    expect(baselineOnly, 'an approved payment of the history').toBeDefined();
    const id = String(baselineOnly!.Id);
    // Act
    const [words, json] = await Promise.all([explain('--payment', id), explain('--payment', id, '--json')]);
    // Assess: seen, with its Response; no Payment Succeeded, no eventId
    expect(words.code, words.stderr).toBe(0);
    expect(words.stdout).toContain(`Payment ${id} was seen with Response "Approved"`);
    expect(words.stdout).toContain('recorded without an event');
    expect(words.stdout).toContain('no Payment Succeeded was published for it');
    expect(words.stdout).not.toMatch(/Payment Succeeded [0-9a-f]{32}/);
    expect(words.stdout).not.toMatch(/[0-9a-f]{32}/);
    const facts = JSON.parse(json.stdout);
    expect(facts.payments).toEqual([
      expect.objectContaining({
        paymentId: id,
        response: 'Approved',
        announcement: 'not-published',
        eventId: null,
      }),
    ]);
  }, 120_000);

  it('a member whose only events are visits: their kind is not kept, and explain says so', async () => {
    // Prepare: a member the second poll published visits for and nothing else
    const bySubject = new Map<string, Set<string>>();
    for (const e of events) {
      const m = e.detail.subject.memberNumber;
      if (m) bySubject.set(m, new Set([...(bySubject.get(m) ?? []), e.detailType]));
    }
    const visitor = [...bySubject].find(
      ([, kinds]) => kinds.size === 1 && kinds.has('Member Visit Recorded'),
    )?.[0];
    expect(visitor, 'a member with visits only').toBeDefined();
    // Act
    const out = await explain('--member', visitor!);
    // Assess: not "no event", but what is and is not kept
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).not.toMatch(/No event is on record/);
    expect(out.stdout).toMatch(
      /What the bridge keeps per member: the last three of its Member Joined, Member Status Changed, Membership Cancelled or Member Contact Preferences Changed \(on its snapshot\)/,
    );
    expect(out.stdout).toContain('It does not keep Member Visit Recorded,');
    expect(out.stdout).toContain('explain cannot say whether one was published');
  }, 120_000);
});
