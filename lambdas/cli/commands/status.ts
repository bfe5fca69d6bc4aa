/**
 * `status --clubs FILE --table NAME [--json]`: per club and source, the watermark, its age, the last
 * error, the pause, and the quota used this month.
 */
import { PLAN_QUOTAS, readClubsFile } from '../../engine/club-config';
import { DynamoDbStateStore, SOURCE_NAMES } from '../../state';
import { CliUsageError, parseFlags } from '../args';
import { dynamoDbClient } from '../aws-env';

export const summary = 'per club and source: watermark, age, last error, quota used this month';

const HELP = `usage: npm run --silent cli -- status --clubs FILE [--table NAME] [--json]

  --clubs FILE   clubs file (JSON)                    (required)
  --table NAME   DynamoDB state table                 (default gym-bridge-state)
  --json         print JSON instead of a table`;

const FLAGS = { clubs: { type: 'string' }, table: { type: 'string' }, json: { type: 'boolean' } } as const;

function age(iso: string | undefined, nowMs: number): string {
  if (!iso) return '-';
  const s = Math.max(0, Math.round((nowMs - Date.parse(iso)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

export async function run(argv: string[]): Promise<number> {
  const flags = parseFlags(argv, FLAGS, HELP);
  if (!flags) return 0;
  if (!flags.clubs) throw new CliUsageError(`--clubs FILE is required\n\n${HELP}`);
  const clubs = await readClubsFile(flags.clubs).catch((err: Error) => {
    throw new CliUsageError(err.message);
  });
  const store = new DynamoDbStateStore({
    client: dynamoDbClient(),
    tableName: flags.table ?? 'gym-bridge-state',
  });
  const now = Date.now();
  const month = new Date(now).toISOString().slice(0, 7);
  const out = [];
  for (const club of clubs) {
    const [cursors, used] = await Promise.all([
      store.listCursors(club.clubId),
      store.getQuotaUsage(club.clubId, month),
    ]);
    out.push({ club, cursors, used, limit: PLAN_QUOTAS[club.plan] });
  }
  if (flags.json) {
    const json = out.map(({ club, cursors, used, limit }) => ({
      clubId: club.clubId,
      quota: { month, used, limit, share: used / limit },
      sources: cursors.map((c) => ({
        source: c.source,
        watermark: c.watermark ?? null,
        health: c.health,
        stats: c.stats ?? {},
      })),
    }));
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    return 0;
  }
  const rows: string[][] = [['club', 'source', 'watermark', 'age', 'last success', 'events', 'last error']];
  for (const { club, cursors } of out) {
    const bySource = new Map(cursors.map((c) => [c.source, c]));
    for (const source of club.sources ?? SOURCE_NAMES) {
      const c = bySource.get(source);
      const err = c?.health.lastError;
      rows.push([
        club.clubId,
        source,
        c?.watermark ?? 'never polled',
        age(c?.watermark, now),
        age(c?.health.lastSuccessAt, now),
        String(c?.stats?.totalEvents ?? 0),
        err
          ? `${err.kind}: ${err.message.slice(0, 60)}${c?.health.pausedUntil ? ` (paused until ${c.health.pausedUntil})` : ''}`
          : '',
      ]);
    }
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows)
    process.stdout.write(
      `${r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd()}\n`,
    );
  process.stdout.write('\n');
  for (const { club, used, limit } of out) {
    process.stdout.write(
      `${club.clubId}: quota ${month} ${used.toLocaleString('en')} / ${limit.toLocaleString('en')} (${((used / limit) * 100).toFixed(2)}%)\n`,
    );
  }
  return 0;
}
