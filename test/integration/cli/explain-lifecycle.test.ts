/**
 * `explain`'s lifecycle part against a local run (issue 34: never an eventId that was not
 * published, never "silent" for one that was): a club in Kolkata polled every hour for two days
 * under the sandbox's clock (short terms on: subjects that qualify after tracking began), sandbox
 * over HTTP, dynalite, the real SDK; then every member and prospect with a lifecycle event is
 * explained from the state table, and one late qualifier and one announced fact through the CLI.
 * A fact that came due before tracking began was passed silently by the first evaluation, or
 * announced later for a subject that came to qualify after it (docs/lifecycle.md, "Baseline and
 * late qualifiers"): the state does not keep which, so explain says so and shows no eventId.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { subjectFacts } from '../../../lambdas/cli/explain/subject-facts';
import { renderExplanation } from '../../../lambdas/cli/explain/subject-words';
import type { ClubConfig } from '../../../lambdas/clubs/club-config';
import { LIFECYCLE_SOURCES } from '../../../lambdas/engine/lifecycle/club-lifecycle';
import { pollClub } from '../../../lambdas/engine/poll-club';
import type { BridgeEvent } from '../../../lambdas/events/catalog';
import { MemorySink } from '../../../lambdas/events/publisher';
import { DynamoDbStateStore } from '../../../lambdas/state';
import { type CliResult, localAwsEnv, runCli } from '../../support/cli-process';
import { useEngineRig } from '../../support/engine-rig';

const HOUR = 3_600_000;
const SETTINGS = { enabled: true, inactiveDays: 1, expiringDays: 2, trialEndingHours: 24 } as const;
/** The lifecycle kinds the state keeps per subject (explain's `lifecycle` kinds). */
const KEPT = new Set([
  'Member First Visit',
  'Member Inactive',
  'Membership Expiring',
  'Prospect Trial Ending',
]);
const SILENT = /came due before tracking began: the first evaluation passed it silently if/;

/** The date of the fact an event announces, as explain's record names it (`about`). */
function factDate(e: BridgeEvent): string {
  const d = e.detail as unknown as Record<string, unknown>;
  const value = d.trialEndDate ?? d.date ?? d.membershipStartDate ?? '';
  return String(value).slice(0, 19);
}

describe('explain: lifecycle facts of a local run', () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 7,
      clubs: [{ clubId: 'club-1', timeZone: 'Asia/Kolkata', members: 80 }],
      historyDays: 2,
      startTime: '2026-03-05T14:20:00Z',
      activityScale: 3,
      shortTerms: true,
    },
  });
  let dir: string | undefined;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('shows the eventId of each fact announced after tracking began, and never calls a published one silent', {
    timeout: 180_000,
  }, async () => {
    // Prepare: the baseline, then a poll every hour for two days
    const table = await rig.newTable('explain-life');
    const store = new DynamoDbStateStore({ client: rig.db.client, tableName: table, now: rig.now });
    const sink = new MemorySink();
    const club: ClubConfig = { ...rig.firstClub(), sources: [...LIFECYCLE_SOURCES], lifecycle: SETTINGS };
    const poll = () =>
      pollClub({ store, sink, clients: rig.clients, owner: 't', now: rig.now }, club, {
        deadlineMs: rig.deadline(),
      });
    /** Each subject a poll published a lifecycle event for, explained right after it (its mark is kept until its date passes). */
    const explainNew = async (events: BridgeEvent[]) => {
      const bySubject = new Map<string, BridgeEvent[]>();
      for (const e of events) {
        const { memberNumber, prospectNumber } = e.detail.subject;
        const key = memberNumber ? `member|${memberNumber}` : `prospect|${prospectNumber}`;
        bySubject.set(key, [...(bySubject.get(key) ?? []), e]);
      }
      return Promise.all(
        [...bySubject].map(async ([key, subjectEvents]) => {
          const [kind, id] = key.split('|') as ['member' | 'prospect', string];
          const facts = await subjectFacts(store, club, { kind, id }, rig.now());
          return { kind, id, events: subjectEvents, facts, text: renderExplanation(facts) };
        }),
      );
    };
    dir = await mkdtemp(join(tmpdir(), 'gym-bridge-explain-life-'));
    const clubsFile = join(dir, 'clubs.json');
    await writeFile(clubsFile, JSON.stringify({ clubs: [club] }));
    const ask = (kind: string, id: string) =>
      runCli(
        ['explain', '--clubs', clubsFile, '--club', club.clubId, `--${kind}`, id, '--table', table],
        localAwsEnv(rig.db.endpoint),
      );
    const cliAnswers: { withId?: CliResult; either?: CliResult } = {};
    /** The CLI asked about the first subject of each case, while its facts are kept. */
    const askTheCli = async (batch: Awaited<ReturnType<typeof explainNew>>) => {
      const withId = batch.find((x) => x.facts.lifecycle?.recorded.some((r) => r.eventId));
      const either = batch.find((x) => x.facts.lifecycle?.recorded.some((r) => r.announced === null));
      if (withId && !cliAnswers.withId) cliAnswers.withId = await ask(withId.kind, withId.id);
      if (either && !cliAnswers.either) cliAnswers.either = await ask(either.kind, either.id);
    };
    await poll();
    const published = new Set<string>();
    const explained: Awaited<ReturnType<typeof explainNew>> = [];
    for (let i = 0; i < 48; i++) {
      rig.sandbox.advance(HOUR);
      const before = sink.events.length;
      expect((await poll()).lifecycle?.outcome).toBe('evaluated');
      const fresh = sink.events
        .slice(before)
        .filter((e) => e.detail.source === 'lifecycle' && KEPT.has(e.detailType));
      for (const e of fresh) published.add(e.detail.eventId);
      const batch = await explainNew(fresh);
      await askTheCli(batch);
      explained.push(...batch);
    }

    // Assess: an eventId shown was published; a published fact still recorded is shown by its
    // eventId, or (due before tracking began) as either, with none; both cases met.
    let shown = 0;
    let eitherWay = 0;
    for (const { kind, id, events, facts, text } of explained) {
      const recorded = facts.lifecycle?.recorded ?? [];
      for (const r of recorded)
        if (r.eventId) expect(published, `${kind} ${id} ${r.eventId}`).toContain(r.eventId);
      expect(text, `${kind} ${id}`).not.toMatch(/no event was published for it/);
      for (const e of events) {
        const date = factDate(e);
        const record =
          recorded.find((r) => r.eventId === e.detail.eventId) ??
          recorded.find((r) => r.detailType === e.detailType && date !== '' && r.about.includes(date));
        if (!record) continue; // a lapse that ended, or a mark the same evaluation let pass
        if (record.eventId) {
          expect(record.eventId, `${kind} ${id} ${e.detailType}`).toBe(e.detail.eventId);
          expect(text).toContain(`recorded as announced: eventId ${e.detail.eventId}`);
          shown++;
        } else {
          expect(record.announced, `${kind} ${id} ${e.detailType}`).toBeNull();
          expect(text).toMatch(SILENT);
          expect(text).not.toContain(e.detail.eventId);
          eitherWay++;
        }
      }
    }
    expect(shown, 'facts announced after tracking began, shown by eventId').toBeGreaterThan(0);
    expect(eitherWay, 'late qualifiers due before tracking began, shown as either').toBeGreaterThan(0);

    // And through the CLI, as a user asks, right after the poll that announced it: one of each case
    const [a, b] = [cliAnswers.withId, cliAnswers.either];
    expect(a?.code, a?.stderr).toBe(0);
    expect(a?.stdout).toMatch(/recorded as announced: eventId /);
    expect(b?.code, b?.stderr).toBe(0);
    expect(b?.stdout).toMatch(SILENT);
  });
});
