/**
 * `status --clubs FILE --table NAME [--json]`: per club and source, the watermark, its age, the last
 * error, whether the club is paused (until when and why), which sources are unavailable (their
 * endpoint is missing for the club) and when they are tried again, the quota used this month, and
 * since when and why the club's lifecycle evaluations fail, when they do (docs/lifecycle.md), and
 * the visits fast lane: on (every how many seconds) or off, and why (docs/operations.md).
 */

import { type ClubConfig, PLAN_QUOTAS } from '../../lambdas/clubs/club-config';
import { readClubsFile } from '../../lambdas/clubs/clubs-file';
import { redactKnownSecrets } from '../../lambdas/common/redact';
import { DAY_MS, HOUR_MS, MINUTE_MS, monthOf, SECOND_MS } from '../../lambdas/common/time-units';
import { activePause, type ClubPause } from '../../lambdas/engine/club-poll/poll-club';
import { describeFastLane, type FastLane } from '../../lambdas/engine/schedule/fast-lane';
import { clubFastLane } from '../../lambdas/engine/schedule/scheduling';
import { enabledSources, isExperimentalSource } from '../../lambdas/sources';
import { type Cursor, DynamoDbStateStore, type SourceName, type StateStore } from '../../lambdas/state';
import type { SourceUnavailable } from '../../lambdas/state/store';
import { CliUsageError, parseFlags } from '../args';
import { dynamoDbClient } from '../aws-env';
import { textTable } from '../format';
import { checkTableExists, checkTableName } from '../preflight';

const HELP = `usage: npm run --silent cli -- status --clubs FILE [--table NAME] [--json]

  --clubs FILE   clubs file (JSON)                    (required)
  --table NAME   DynamoDB state table                 (default gym-bridge-state)
  --json         print JSON instead of a table

A paused club (credentials rejected, or the quota spent) is shown with the reason and the time it
is polled again; 'clubs resume --table NAME --club-id ID' (or 'poll --clubs FILE --resume') clears
the pause now. A source whose
endpoint is missing for the club (404/403) is shown 'unavailable' with the time it is tried again.`;

const FLAGS = { clubs: { type: 'string' }, table: { type: 'string' }, json: { type: 'boolean' } } as const;

/** What a source is doing, in one word. */
export type SourceState = 'ok' | 'never polled' | 'paused' | 'unavailable' | 'failing' | 'not enabled';

export interface SourceStatus {
  readonly source: SourceName;
  readonly enabled: boolean;
  readonly experimental: boolean;
  readonly state: SourceState;
  readonly watermark: string | null;
  /** Set while the endpoint is missing for the club: why, since when, next try. */
  readonly unavailable: SourceUnavailable | null;
  readonly health: Cursor['health'] | null;
  readonly stats: Record<string, number>;
}

export interface ClubStatus {
  readonly clubId: string;
  /** The pause in force, or null. */
  readonly pause: ClubPause | null;
  readonly quota: { month: string; used: number; limit: number; share: number };
  readonly sources: SourceStatus[];
  /** The club's lifecycle evaluations: since when and why they fail (null: they do not). */
  readonly lifecycle: { readonly failing: LifecycleFailing | null };
  /** The visits fast lane as the dispatcher decides it now (docs/operations.md). */
  readonly fastLane: FastLane & { readonly summary: string };
}

export interface LifecycleFailing {
  readonly since: string;
  readonly lastAt: string;
  readonly attempts: number;
  readonly reason: string;
}

function sourceState(enabled: boolean, cursor: Cursor | undefined, pause: ClubPause | null): SourceState {
  if (!enabled) return 'not enabled';
  if (pause) return 'paused';
  if (cursor?.health.unavailable) return 'unavailable';
  if (!cursor || cursor.version === 0) return 'never polled';
  return cursor.health.consecutiveFailures > 0 ? 'failing' : 'ok';
}

/** The status of each club from the state table (enabled sources first, then other stored cursors). */
export async function clubStatus(
  store: StateStore,
  clubs: readonly ClubConfig[],
  nowMs: number,
): Promise<ClubStatus[]> {
  const month = monthOf(nowMs);
  return Promise.all(
    clubs.map(async (club) => {
      const [cursors, used, states] = await Promise.all([
        store.view(club.clubId).listCursors(),
        store.view(club.clubId).getQuotaUsage(month),
        store.readClubStates([club.clubId], month),
      ]);
      const failed = states.get(club.clubId)?.lifecycleFailure;
      const limit = PLAN_QUOTAS[club.plan];
      const pause = activePause(cursors, nowMs) ?? null;
      const lane = clubFastLane(club, cursors, used, nowMs);
      const bySource = new Map(cursors.map((c) => [c.source, c]));
      const enabled = enabledSources(club);
      const names = [...enabled, ...cursors.map((c) => c.source).filter((s) => !enabled.includes(s))];
      return {
        clubId: club.clubId,
        pause,
        quota: { month, used, limit, share: used / limit },
        sources: names.map((source): SourceStatus => {
          const c = bySource.get(source);
          return {
            source,
            enabled: enabled.includes(source),
            experimental: isExperimentalSource(source),
            state: sourceState(enabled.includes(source), c, pause),
            watermark: c?.watermark ?? null,
            unavailable: c?.health.unavailable ?? null,
            health: c?.health ?? null,
            stats: c?.stats ?? {},
          };
        }),
        fastLane: { ...lane, summary: describeFastLane(lane) },
        lifecycle: {
          failing: failed
            ? {
                since: new Date(failed.sinceMs).toISOString(),
                lastAt: new Date(failed.lastMs).toISOString(),
                attempts: failed.attempts,
                reason: redactKnownSecrets(failed.error),
              }
            : null,
        },
      };
    }),
  );
}

function age(iso: string | undefined | null, nowMs: number): string {
  if (!iso) return '-';
  const ms = Math.max(0, Math.round((nowMs - Date.parse(iso)) / SECOND_MS) * SECOND_MS);
  if (ms < 2 * MINUTE_MS) return `${ms / SECOND_MS}s`;
  if (ms < 2 * HOUR_MS) return `${Math.round(ms / MINUTE_MS)}m`;
  if (ms < 2 * DAY_MS) return `${Math.round(ms / HOUR_MS)}h`;
  return `${Math.round(ms / DAY_MS)}d`;
}

/**
 * A stored reason as the table shows it: redacted before it is cut, so a credential a state written
 * by an older release holds is never printed in part (the output pass only finds it whole).
 */
const shown = (text: string) => redactKnownSecrets(text).slice(0, 60);

function note(s: SourceStatus): string {
  if (s.unavailable) {
    const u = s.unavailable;
    return `unavailable since ${u.since} (${u.status ? `HTTP ${u.status} ` : ''}${u.kind}): ${shown(u.reason)}; next try ${u.retryAt}`;
  }
  const err = s.health?.lastError;
  return err ? `${err.kind}: ${shown(err.message)}` : '';
}

/** The human table: one row per club and source, then per club its pause (if any) and its quota. */
export function renderStatus(
  status: readonly ClubStatus[],
  nowMs: number,
  tableName: string,
  clubsFile?: string,
): string {
  const rows: string[][] = [
    ['club', 'source', 'state', 'watermark', 'age', 'last success', 'events', 'last error / note'],
  ];
  for (const club of status) {
    for (const s of club.sources) {
      rows.push([
        club.clubId,
        `${s.source}${s.experimental ? ' (experimental)' : ''}`,
        s.state,
        s.watermark ?? 'never polled',
        age(s.watermark, nowMs),
        age(s.health?.lastSuccessAt, nowMs),
        String(s.stats.totalEvents ?? 0),
        note(s),
      ]);
    }
  }
  const lines = textTable(rows).split('\n');
  lines.push('');
  for (const club of status) {
    const p = club.pause;
    if (p) {
      lines.push(
        `${club.clubId}: PAUSED until ${p.until} (${p.kind === 'auth' ? 'credentials rejected' : 'quota exceeded'}` +
          ` on ${p.source}, ${p.consecutiveFailures} in a row): ${p.reason}`,
        `  resume now: npm run --silent cli -- clubs resume --table ${tableName} --club-id ${club.clubId}` +
          (clubsFile ? ` (or poll --clubs ${clubsFile} --table ${tableName} --resume)` : ''),
      );
    }
    const unavailable = club.sources.filter((s) => s.enabled && s.unavailable);
    if (unavailable.length > 0) {
      lines.push(
        `${club.clubId}: unavailable (not polled until their next try, the other sources go on): ${unavailable
          .map((s) => `${s.source} until ${s.unavailable!.retryAt}`)
          .join(', ')}`,
      );
    }
    const failing = club.lifecycle.failing;
    if (failing) {
      lines.push(
        `${club.clubId}: lifecycle: failing since ${failing.since} (${failing.attempts} attempts, the last at ${failing.lastAt}): ${redactKnownSecrets(failing.reason).slice(0, 200)}` +
          ' (docs/deploy.md#lifecyclefailing)',
      );
    }
    lines.push(`${club.clubId}: fast lane ${club.fastLane.summary}`);
    const q = club.quota;
    lines.push(
      `${club.clubId}: quota ${q.month} ${q.used.toLocaleString('en')} / ${q.limit.toLocaleString('en')} (${(q.share * 100).toFixed(2)}%)`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export async function run(argv: string[]): Promise<number> {
  const flags = parseFlags(argv, FLAGS, HELP);
  if (!flags) return 0;
  if (!flags.clubs) throw new CliUsageError(`--clubs FILE is required\n\n${HELP}`);
  const clubs = await readClubsFile(flags.clubs).catch((err: Error) => {
    throw new CliUsageError(err.message);
  });
  const tableName = flags.table ?? 'gym-bridge-state';
  checkTableName(tableName);
  const client = dynamoDbClient();
  await checkTableExists(client, tableName, {
    whenMissing:
      'nothing has been polled into it (poll --create-table creates it); check --table and AWS_REGION / AWS_ENDPOINT_URL_DYNAMODB',
  });
  const store = new DynamoDbStateStore({ client, tableName });
  const now = Date.now();
  const status = await clubStatus(store, clubs, now);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
    return 0;
  }
  process.stdout.write(renderStatus(status, now, tableName, flags.clubs));
  return 0;
}
