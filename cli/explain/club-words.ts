/**
 * The answer to "why did (or didn't) I get Club Data Stale (Source Unavailable, Credentials
 * Rejected, Quota Low)?" in words, from what the state holds of the club (./club-facts.ts): per
 * source, then the club's refusals and its quota alert; each sentence a fact of the state table and
 * what it means for the event. Pure: the same facts give the same text.
 */

import { MINUTE_MS } from '../../lambdas/common/time-units';
import type { ClubOpsFacts, Notice, RefusalEpisode, SourceOpsFacts } from './club-facts';

const minutes = (ms: number) => `${Math.round(ms / MINUTE_MS)} minutes`;

const NOT_BUILT = 'the stored episode is not one this release builds the event of';

/** What became of the event, as a sentence's end; `why` an eventId of one published is not shown. */
function noticeWords(n: Notice, why = NOT_BUILT): string {
  if (n.announcement === 'pending')
    return `${n.detailType} is owed on the cursor, not delivered yet (pending): the next poll of the club publishes it first thing, under the eventId it was given`;
  if (n.eventId) return `${n.detailType} was published: eventId ${n.eventId}`;
  return `${n.detailType} was published when the episode began (the cursor no longer owes it); its eventId is not shown: ${why}`;
}

function staleWords(src: SourceOpsFacts, threshold: string): string {
  const { stale: s, source: name } = src;
  const last = `its last success was ${s.lastSuccessAt}`;
  const refused = src.lastError?.kind === 'auth' || src.lastError?.kind === 'quota';
  switch (s.episode) {
    case 'never-succeeded':
      return `Club Data Stale: ${name} has never completed a poll, so there is no success to count from: no Club Data Stale until it has one.`;
    case 'not-due':
      return `Club Data Stale: not due: ${last}. It becomes due at ${s.dueAt} (${threshold} after it) if no poll of ${name} succeeds by then, and is announced by the first poll of ${name} that fails or finishes incomplete from then on.`;
    case 'waiting':
      return refused
        ? `Club Data Stale: ${last}, over ${threshold} ago (due since ${s.dueAt}), but its polls since were refused (${src.lastError?.kind === 'auth' ? '401' : '429'}): a refusal is the club's pause, announced as its own episode (above), not as Club Data Stale; it is announced by the first poll of ${name} that fails otherwise or finishes incomplete.`
        : `Club Data Stale: ${last}, over ${threshold} ago (due since ${s.dueAt}), but no poll of ${name} has failed since then: it is announced by the first poll of ${name} that fails or finishes incomplete (a source that is not polled at all, as a disabled club's, or whose endpoint is unavailable, is not announced stale).`;
    case 'due':
      return `Club Data Stale: due since ${s.dueAt} (${last}); a poll of ${name} failed after that and its notice is not written: the next poll of the club announces it first thing.`;
    default:
      return `Club Data Stale: stale since ${s.lastSuccessAt} (its last success), announced at ${s.notifiedAt}: ${noticeWords(s.notice)}.`;
  }
}

function sourceWords(s: SourceOpsFacts, f: ClubOpsFacts): string[] {
  const out: string[] = [];
  const head = `${s.source}${s.experimental ? ' (experimental)' : ''}`;
  if (!s.enabled)
    out.push(`${head}: not enabled for club ${f.clubId} (a cursor of an earlier setting is kept).`);
  if (!s.polled) {
    out.push(`${head}: never polled: none of its operational events can be due.`);
    return out;
  }
  if (s.lastError && s.consecutiveFailures > 0)
    out.push(
      `${head}: its last ${s.consecutiveFailures} poll${s.consecutiveFailures === 1 ? '' : 's'} failed; the last (${s.lastError.at}): ${s.lastError.kind}: ${s.lastError.message.slice(0, 160)}.`,
    );
  const u = s.unavailable;
  out.push(
    u
      ? `${head}: Club Source Unavailable: its endpoint is unavailable since ${u.since} (${u.kind}${u.status === undefined ? '' : `, HTTP ${u.status}`}: ${u.reason.slice(0, 160)}), tried again at ${u.retryAt}; announced when the episode began: ${noticeWords(u.notice)}.`
      : `${head}: Club Source Unavailable: not due: the endpoint has no unavailable mark; an episode begins, and is announced once, when it answers 404 or a 403 that blames no credential${s.experimental ? ' (this experimental source also 400 or an unusable response)' : ''}; other failures (5xx, timeouts) count toward Club Data Stale instead.`,
  );
  out.push(`${head}: ${staleWords(s, minutes(f.staleAfterMs))}`);
  if (s.owed.length > 0)
    out.push(
      `${head}: its cursor owes ${s.owed.length} operational event${s.owed.length === 1 ? '' : 's'} not delivered yet (pending, no eventId until published): ${s.owed.map((o) => `${o.detailType}${o.occurredAt ? ` of ${o.occurredAt}` : ''}`).join(', ')}; the next poll of the club publishes ${s.owed.length === 1 ? 'it' : 'them'} first thing.`,
    );
  return out;
}

function refusalWords(r: RefusalEpisode, nowMs: number): string {
  const what =
    r.kind === 'auth' ? 'its credentials or API key were rejected (401)' : 'the API answered 429 (the quota)';
  const runs = r.sources
    .map((s) => `${s.source} ${s.consecutiveFailures} in a row, the latest at ${s.at}`)
    .join('; ');
  const pause =
    r.pausedUntil && Date.parse(r.pausedUntil) > nowMs
      ? `the club is paused until ${r.pausedUntil}`
      : `the pause ended${r.pausedUntil ? ` at ${r.pausedUntil}` : ''}: the next poll tries again`;
  const began = r.startedAt ? `began at ${r.startedAt}` : 'began with an earlier refusal';
  const why = r.startedAt
    ? "the refusal's message does not name the reason its eventId derives from"
    : 'the state keeps only the latest refusal of each source, not the one its eventId derives from';
  return `${r.notice.detailType}: since the club's last success ${what} (${runs}; ${r.reason.slice(0, 160)}); ${pause}. The episode ${began} and is announced once, whichever source is refused next: ${noticeWords(r.notice, why)}.`;
}

function quotaWords(f: ClubOpsFacts): string {
  const q = f.quota;
  const figures = `${q.used} of ${q.limit} requests counted in ${q.month} (${(q.share * 100).toFixed(1)}%)`;
  const rule = `announced once a month when the count reaches ${q.alertAt} (${Math.round(q.alertShare * 100)}% of the plan)`;
  if (q.notice.announcement !== 'none')
    return `Club Quota Low: ${figures}; ${rule}: ${noticeWords(q.notice)}.`;
  return q.used >= q.alertAt
    ? `Club Quota Low: ${figures}, past the alert, and not marked as delivered: the next poll that makes a request announces it.`
    : `Club Quota Low: ${figures}; ${rule}: not due (a 429 is its own episode, above).`;
}

/** The sentences of the club's explanation, in the order they are printed. */
export function clubWords(f: ClubOpsFacts): string[] {
  const nowMs = Date.parse(f.observedAt);
  const out: string[] = [];
  const kinds = new Set(f.refusals.map((r) => r.kind));
  for (const r of f.refusals) out.push(refusalWords(r, nowMs));
  if (!kinds.has('auth'))
    out.push(
      "Club Credentials Rejected: no 401 since the club's last success: not due; announced once per episode, by the refusal that pauses the club.",
    );
  if (!kinds.has('quota'))
    out.push("Club Quota Low on a 429: no 429 since the club's last success: not due.");
  out.push(quotaWords(f));
  out.push(`Fast lane: ${f.fastLane.summary}.`);
  for (const s of f.sources) out.push(...sourceWords(s, f));
  return out;
}

/** The whole explanation as text. */
export function renderClubExplanation(f: ClubOpsFacts): string {
  const lines = [
    `club ${f.clubId}: operational events (as of ${f.observedAt}; a source is stale ${minutes(f.staleAfterMs)} after its last success)`,
  ];
  for (const sentence of clubWords(f)) lines.push(`  - ${sentence}`);
  return `${lines.join('\n')}\n`;
}
