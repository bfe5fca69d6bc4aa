/** The sandbox's clubs: each club's store and simulation, populated at the start of the history. */
import { ClubSimulation } from './activity/simulation';
import type { ClubRuntime } from './club-runtime';
import { ClubStore } from './club-store';
import type { Faults } from './faults';
import type { Journal } from './journal';
import { localeForZone } from './locales';
import type { ResolvedClub, ResolvedOptions } from './options';
import type { PoisonLog } from './poison/poison-log';

/** The clock moves every club this far at a time, so clubs stay in step. */
const ADVANCE_CHUNK_MS = 15 * 60 * 1000;

function buildClub(
  club: ResolvedClub,
  resolved: ResolvedOptions,
  faults: Faults,
  journal: Journal,
  poisonLog: PoisonLog,
  historyStart: number,
): ClubRuntime {
  const store = new ClubStore(
    {
      clubId: club.clubId,
      timeZone: club.timeZone,
      plan: club.plan,
      locale: localeForZone(club.timeZone.name),
      ambiguousZone: resolved.ambiguousZone,
      openMinute: 5 * 60,
      closeMinute: 22 * 60,
      open24h: club.open24h,
    },
    journal,
  );
  const simulation = new ClubSimulation(store, {
    seed: resolved.seed,
    initialMembers: club.members,
    ...(club.visits !== undefined ? { historyVisits: club.visits } : {}),
    historyDays: resolved.historyDays,
    activityScale: resolved.activityScale,
    shortTerms: resolved.shortTerms,
    faults,
    poisonLog,
  });
  simulation.populate(historyStart);
  return {
    clubId: club.clubId,
    apiKey: club.apiKey,
    plan: club.plan,
    timeZone: club.timeZone.name,
    store,
    simulation,
  };
}

/** Every club, populated as it stands at `historyStart` (activity not yet run). */
export function buildClubs(
  resolved: ResolvedOptions,
  faults: Faults,
  journal: Journal,
  poisonLog: PoisonLog,
  historyStart: number,
): ClubRuntime[] {
  return resolved.clubs.map((club) => buildClub(club, resolved, faults, journal, poisonLog, historyStart));
}

/** Generates every club's activity in [from, to), the clubs in step a quarter hour at a time. */
export function runClubs(runtimes: readonly ClubRuntime[], from: number, to: number): void {
  for (let t = from; t < to; ) {
    const end = Math.min(to, t + ADVANCE_CHUNK_MS);
    for (const club of runtimes) club.simulation.run(t, end);
    t = end;
  }
}
