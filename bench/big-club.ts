/**
 * The large club of the throughput and backfill benchmarks: 50,000 members and 1,000,000 visits
 * of history in the sandbox, run in its own process.
 */

import { type ClubConfig, parseClubsFile } from '../lambdas/clubs/club-config';
import { DAY_MS } from '../lambdas/common/time-units';
import type { ClubContext } from '../lambdas/sources/source';
import { HostProcess } from './hosts/rpc';

export interface BigClubOptions {
  readonly members: number;
  readonly visits: number;
  readonly historyDays: number;
  readonly seed: number;
}

export interface SandboxInfo {
  readonly url: string;
  readonly clubsFile: unknown;
  readonly nowMs: number;
  readonly lastSeq: number;
  readonly startupMs: number;
  readonly rssBytes: number;
}

export interface BigClub {
  readonly host: HostProcess;
  readonly club: ClubConfig;
  readonly ctx: Omit<ClubContext, 'observedAtMs'>;
  readonly info: SandboxInfo;
  readonly options: BigClubOptions;
  /** Start of the sandbox's history (UTC ms): a backfill from here reads everything. */
  readonly historyStartMs: number;
}

export const SANDBOX_HOST = new URL('./hosts/sandbox-host.ts', import.meta.url);

export function contextOf(club: ClubConfig): Omit<ClubContext, 'observedAtMs'> {
  return {
    clubId: club.clubId,
    timeZone: club.timeZone,
    unstatedZone: club.unstatedZone,
    piiPolicy: club.piiPolicy,
    ...(club.paymentRules ? { paymentRules: club.paymentRules } : {}),
  };
}

export async function startBigClub(options: BigClubOptions): Promise<BigClub> {
  const host = HostProcess.start(SANDBOX_HOST, 6144);
  const startTime = '2026-03-02T00:00:00Z';
  const info = await host.call<SandboxInfo>('start', {
    seed: options.seed,
    startTime,
    historyDays: options.historyDays,
    clubs: [
      {
        clubId: 'big-club',
        timeZone: 'Australia/Sydney',
        plan: 'advanced',
        members: options.members,
        visits: options.visits,
      },
    ],
  });
  const club = parseClubsFile(info.clubsFile, 'bench sandbox')[0]!;
  return {
    host,
    club,
    ctx: contextOf(club),
    info,
    options,
    historyStartMs: info.nowMs - options.historyDays * DAY_MS - DAY_MS,
  };
}
