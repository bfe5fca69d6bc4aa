/**
 * A fleet of synthetic clubs for the scale benchmarks: club records, each club's cursors copied from
 * the typical club's steady state with its times shifted so that clubs fall due at different
 * minutes, and the cursors stored as each club's poll would store them.
 */
import { type ClubConfig, parseClubsFile } from '../../lambdas/clubs/club-config';
import { type ClubRecord, clubRecordFrom } from '../../lambdas/clubs/club-record';
import { MINUTE_MS } from '../../lambdas/common/time-units';
import type { StateStore } from '../../lambdas/state/state-store';
import type { Cursor } from '../../lambdas/state/store';

/** The zones the fleet's clubs are spread over. */
export const ZONES = [
  'Australia/Sydney',
  'Europe/London',
  'America/New_York',
  'Asia/Singapore',
  'America/Los_Angeles',
];

function syntheticClub(i: number): ClubConfig {
  return parseClubsFile(
    {
      clubs: [
        {
          clubId: `club-${String(i).padStart(5, '0')}`,
          baseUrl: 'https://api.example.com/v1',
          timeZone: ZONES[i % ZONES.length],
          plan: i % 3 === 1 ? 'advanced' : 'basic',
          credentials: { username: 'integrator', password: 'x', apiKey: `key-${i}` },
        },
      ],
    },
    'synthetic',
  )[0]!;
}

/**
 * The cursors of a club in steady state (taken from the typical-club simulation), for another club,
 * with every time shifted back by `shiftMs` so that clubs fall due at different minutes.
 */
function cursorsFor(template: readonly Cursor[], clubId: string, shiftMs: number): Cursor[] {
  const shift = (iso: string | undefined) => (iso ? new Date(Date.parse(iso) - shiftMs).toISOString() : iso);
  return template.map((c) => {
    const health = { ...c.health };
    for (const key of ['lastPollAt', 'lastSuccessAt'] as const) {
      const v = shift(health[key]);
      if (v) health[key] = v;
    }
    const stats = c.stats ? { ...c.stats } : undefined;
    if (stats?.lastSweepAtMs !== undefined) stats.lastSweepAtMs -= shiftMs;
    const copy: Cursor = { ...c, clubId, version: 0, health };
    if (stats) copy.stats = stats;
    const watermark = shift(c.watermark);
    if (watermark) copy.watermark = watermark;
    delete copy.scan;
    return copy;
  });
}

export interface SyntheticFleet {
  readonly records: ClubRecord[];
  readonly cursors: Cursor[];
}

/** Minutes before `nowMs` the fleet's club number `i` (1-based) was last polled: 0..14, deterministic. */
export const lastPolledMinutesAgo = (i: number) => (i * 7919) % 15;

/** `clubs` clubs, each last polled 0 to 14 minutes before `nowMs` (a deterministic spread). */
export function syntheticFleet(clubs: number, template: readonly Cursor[], nowMs: number): SyntheticFleet {
  const records: ClubRecord[] = [];
  const cursors: Cursor[] = [];
  const lastPoll = Math.max(
    ...template.map((c) => Date.parse(c.health.lastPollAt ?? '1970-01-01T00:00:00Z')),
  );
  for (let i = 1; i <= clubs; i++) {
    const config = syntheticClub(i);
    records.push(clubRecordFrom(config, `gym-bridge/bench/clubs/${config.clubId}`));
    // Each club last polled 0..14 minutes before `nowMs` (deterministic spread).
    const shift = lastPoll - (nowMs - lastPolledMinutesAgo(i) * MINUTE_MS);
    cursors.push(...cursorsFor(template, config.clubId, shift));
  }
  return { records, cursors };
}

/** Stores each club's cursors as its poll would: one session (two writes) per club. */
export async function seedCursors(
  store: StateStore,
  cursors: readonly Cursor[],
  concurrency: number,
): Promise<void> {
  const byClub = new Map<string, Cursor[]>();
  for (const c of cursors) byClub.set(c.clubId, [...(byClub.get(c.clubId) ?? []), c]);
  await forEachLimited([...byClub], concurrency, async ([clubId, list]) => {
    const session = await store.openClub(clubId, 'bench-seed', 60_000, Date.now());
    if (!session) throw new Error(`could not seed club ${clubId}: its lease is held`);
    for (const c of list) await session.putCursor(c);
    await session.close();
  });
}

/** Runs `run` over the items, at most `limit` at a time. */
export async function forEachLimited<T>(items: readonly T[], limit: number, run: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await run(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
