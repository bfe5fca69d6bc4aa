/**
 * `clubs resume`: polls a paused club again at once (the pause and failure count of every source
 * cleared, with --retry-unavailable the unavailable marks too), and the report of what was cleared.
 */
import { type ResumeClubResult, resumeClub } from '../../../lambdas/engine/club-poll/resume-club';
import { DynamoDbStateStore } from '../../../lambdas/state';
import { CliUsageError } from '../../args';
import { dynamoDbClient } from '../../aws-env';
import { checkTableExists } from '../../preflight';
import { TABLE_MISSING } from './state-table';
import type { Flags } from './usage';

export async function resume(flags: Flags, tableName: string): Promise<number> {
  const clubId = flags['club-id'];
  if (!clubId) throw new CliUsageError('clubs resume needs --club-id ID');
  const client = dynamoDbClient();
  await checkTableExists(client, tableName, { whenMissing: TABLE_MISSING });
  const store = new DynamoDbStateStore({ client, tableName });
  const result = await resumeClub(store, clubId, Date.now(), {
    retryUnavailable: flags['retry-unavailable'] === true,
  });
  if (result.cursors === 0) {
    process.stderr.write(
      `gym-bridge clubs: no state for club '${clubId}' in ${tableName} (never polled there)\n`,
    );
    return 1;
  }
  process.stdout.write(formatResume(result));
  return 0;
}

/** What `clubs resume` (and `poll --resume`) cleared, one line per source, or that nothing was. */
export function formatResume(result: ResumeClubResult): string {
  if (result.resumed.length === 0) return `${result.clubId}: not paused, nothing to resume\n`;
  const lines = result.resumed.map((r) => {
    const parts: string[] = [];
    if (r.pausedUntil) {
      parts.push(`${r.pauseWasActive ? 'pause' : 'expired pause'} until ${r.pausedUntil} cleared`);
    }
    if (r.consecutiveFailures) parts.push(`${r.consecutiveFailures} failures in a row reset`);
    if (r.lastError) parts.push(`last error: ${r.lastError.slice(0, 120)}`);
    if (r.unavailable)
      parts.push(`unavailable mark (${r.unavailable.kind} since ${r.unavailable.since}) cleared`);
    return `  ${r.source}: ${parts.join('; ')}`;
  });
  return `${result.clubId}: resumed, polled at the next poll\n${lines.join('\n')}\n`;
}
