/**
 * Stale poll messages: a message dispatched before a source's last successful poll is stale for
 * that source (another message already covered it). Such sources are left out, so a backlog of
 * duplicate messages costs no API requests. pollClub judges it on the cursors its lease write
 * returns, so the check costs no read of its own.
 */

import type { Cursor, SourceName } from '../../state/store';

/** The message's sources minus those whose last successful poll came after `dispatchedAt`. */
export function sourcesStillDue(
  cursors: readonly Cursor[],
  sources: readonly SourceName[],
  dispatchedAt: string,
): SourceName[] {
  const dispatchedMs = Date.parse(dispatchedAt);
  const succeededSince = new Set(
    cursors
      .filter((c) => c.health.lastSuccessAt && Date.parse(c.health.lastSuccessAt) > dispatchedMs)
      .map((c) => c.source),
  );
  return sources.filter((s) => !succeededSince.has(s));
}
