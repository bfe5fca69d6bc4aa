/** The order in which a club's sources are polled. */

import type { Cursor, SourceName } from '../../state/store';

/**
 * Sources in their usual order (members first), except that those polled least recently go first,
 * so that a club whose polls keep running out of time does not starve the same sources every time.
 */
export function pollOrder(sources: readonly SourceName[], cursors: readonly Cursor[]): SourceName[] {
  const lastPoll = new Map(
    cursors.map((c) => [c.source, c.health.lastPollAt ? Date.parse(c.health.lastPollAt) : 0]),
  );
  const rank = (s: SourceName) => lastPoll.get(s) ?? 0;
  const newest = Math.max(0, ...sources.map(rank));
  // Only sources left behind by more than a poll jump the queue; otherwise keep the usual order.
  const behind = sources.filter((s) => newest - rank(s) > 0 && rank(s) < newest - 60_000);
  return [...behind.sort((a, b) => rank(a) - rank(b)), ...sources.filter((s) => !behind.includes(s))];
}
