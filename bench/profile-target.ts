/**
 * What `node --cpu-prof` profiles (started by profile.ts, never on its own): an in-memory backfill
 * of the large club's visits from the running sandbox, then exit.
 */
import { parseClubsFile } from '../lambdas/clubs/club-config';
import { pollSource } from '../lambdas/engine/club-poll/poll-source';
import { SOURCES } from '../lambdas/sources';
import { MemoryStateStore, withClubSession } from '../lambdas/state';
import { contextOf } from './big-club';
import { CountingSink } from './counting-sink';
import { CountingClientFactory } from './sim-clients';

const input = JSON.parse(process.env.BENCH_PROFILE_INPUT ?? '{}') as {
  clubsFile: unknown;
  nowMs: number;
  fromMs: number;
};
const club = parseClubsFile(input.clubsFile, 'bench sandbox')[0]!;
const clients = new CountingClientFactory();
const report = await withClubSession(new MemoryStateStore(), club.clubId, 'profile', (session) =>
  pollSource(
    {
      store: session,
      sink: new CountingSink(),
      client: clients.forClub(club, () => {}),
      now: () => input.nowMs,
      owner: 'profile',
    },
    contextOf(club),
    SOURCES.visits,
    { deadlineMs: Date.now() + 600_000, backfillFromMs: input.fromMs },
  ),
);
process.stdout.write(
  `${JSON.stringify({ records: report.records, pages: report.pages, events: report.events })}\n`,
);
