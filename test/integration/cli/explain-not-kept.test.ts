/**
 * `explain` of the subjects of the kinds the state does not keep per subject (docs/cli.md, explain:
 * filed by a hash of their record) that explain-command.test.ts's run does not publish: Member Sent
 * To Debt Collection and Class Attendance Recorded (an experimental source the club lists). A local
 * run (the sandbox over HTTP, dynalite, the real SDK): a baseline, then a backfill over the sandbox's
 * history, which publishes the debt referrals and class attendance of its ten days; then, through
 * the CLI, a member of each kind: the kind named as not kept per member, and no eventId claimed for
 * the event.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClubConfig } from '../../../lambdas/clubs/club-config';
import { pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import { type BridgeEvent, DETAIL_TYPES } from '../../../lambdas/events/catalog';
import { MemorySink } from '../../../lambdas/events/publisher';
import { DynamoDbStateStore } from '../../../lambdas/state';
import { localAwsEnv, runCli } from '../../support/cli-process';
import { useEngineRig } from '../../support/engine-rig';

const DAY = 86_400_000;

describe('explain: kinds not kept per subject, of a local run', () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 21,
      clubs: [{ clubId: 'club-1', timeZone: 'Australia/Sydney', open24h: true }],
      members: 120,
      historyDays: 10,
      activityScale: 10,
      startTime: '2026-05-04T20:00:00Z',
    },
  });
  let dir: string | undefined;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a member sent to debt collection and a member who attended a class: not kept, said so, no eventId', async () => {
    // Prepare: a baseline of the club's sources, then a backfill of the history
    const table = await rig.newTable('explain-not-kept');
    const store = new DynamoDbStateStore({ client: rig.db.client, tableName: table, now: rig.now });
    const club: ClubConfig = {
      ...rig.firstClub(),
      sources: ['members', 'debtCollection', 'classAttendance'],
    };
    const sink = new MemorySink();
    const poll = (backfillFromMs?: number) =>
      pollClub({ store, sink, clients: rig.clients, owner: 't', now: rig.now }, club, {
        deadlineMs: rig.deadline(),
        ...(backfillFromMs === undefined ? {} : { backfillFromMs }),
      });
    expect((await poll()).failures).toEqual([]);
    expect((await poll(rig.now() - 10 * DAY)).failures).toEqual([]);
    const memberOf = (type: string): BridgeEvent | undefined =>
      sink.events.find((e) => e.detailType === type && e.detail.subject.memberNumber);
    const debt = memberOf(DETAIL_TYPES.MemberSentToDebtCollection);
    const classes = memberOf(DETAIL_TYPES.ClassAttendanceRecorded);
    expect(debt, 'a debt referral of the history, published').toBeDefined();
    expect(classes, "a member's class attendance of the history, published").toBeDefined();
    dir = await mkdtemp(join(tmpdir(), 'gym-bridge-explain-not-kept-'));
    const clubsFile = join(dir, 'clubs.json');
    await writeFile(clubsFile, JSON.stringify({ clubs: [club] }));
    const explain = (member: string, ...more: string[]) =>
      runCli(
        [
          'explain',
          '--clubs',
          clubsFile,
          '--club',
          club.clubId,
          '--member',
          member,
          '--table',
          table,
          ...more,
        ],
        localAwsEnv(rig.db.endpoint),
      );
    // Act
    const cases = [debt!, classes!];
    const runs = await Promise.all(
      cases.map(async (e) => {
        const member = e.detail.subject.memberNumber!;
        const [words, json] = await Promise.all([explain(member), explain(member, '--json')]);
        return { e, member, words, json };
      }),
    );
    // Assess: the kind is named as not kept per member; none of the member's events of it is claimed
    for (const { e, member, words, json } of runs) {
      const label = `${e.detailType} of member ${member}`;
      expect(words.code, `${label}: ${words.stderr}`).toBe(0);
      expect(words.stdout, label).toMatch(
        new RegExp(
          `It does not keep [^.]*${e.detailType}[^.]* per member \\(filed by a hash of the record\\): explain cannot say whether one was published`,
        ),
      );
      expect(words.stdout, label).not.toMatch(/No event is on record/);
      const theirs = sink.events.filter(
        (x) => x.detailType === e.detailType && x.detail.subject.memberNumber === member,
      );
      for (const x of theirs) {
        expect(words.stdout, label).not.toContain(x.detail.eventId);
        expect(json.stdout, label).not.toContain(x.detail.eventId);
      }
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout).kept.notKept).toContain(e.detailType);
    }
  }, 120_000);
});
