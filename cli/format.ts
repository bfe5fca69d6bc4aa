/** Terminal formatting shared by the CLI commands: one readable line per club poll or event. */

import type { ClubReport, SourceFailure } from '../lambdas/engine/club-poll/poll-club';
import type { BridgeEvent } from '../lambdas/events/catalog';

/** `1 event`, `2 events`, `0 events`: a count and its noun, singular for one (plural: noun + s). */
/** Rows as aligned columns, two spaces apart, no trailing blanks (the first row is the header, if any). */
export function textTable(rows: readonly (readonly string[])[]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

export function formatClubReport(r: ClubReport): string {
  if (r.outcome === 'disabled') return `${r.clubId}: disabled`;
  if (r.outcome === 'paused') return formatPause(r);
  const events = r.sources.reduce((n, s) => n + s.events, 0);
  const records = r.sources.reduce((n, s) => n + s.records, 0);
  const quarantined = r.sources.reduce((n, s) => n + s.quarantined, 0);
  const partial = r.sources.filter((s) => s.outcome !== 'completed').map((s) => `${s.source}:${s.outcome}`);
  const parts = [
    `${r.clubId}: ${r.outcome}`,
    count(r.sources.length, 'source'),
    count(records, 'record'),
    count(events, 'event'),
    count(r.requests, 'request'),
  ];
  if (quarantined) parts.push(`${quarantined} quarantined`);
  if (partial.length) parts.push(partial.join(' '));
  const polled = r.sources.filter((s) => s.outcome !== 'unavailable');
  const baseline = polled.length > 0 && polled.every((s) => s.mode === 'baseline' && s.events === 0);
  if (baseline && r.failures.length === 0) parts.push('baseline recorded, no events by design');
  const backfill = backfillSummary(r);
  if (backfill) parts.push(backfill);
  const lifecycle = lifecycleSummary(r);
  if (lifecycle) parts.push(lifecycle);
  const lines = [parts.join(', ')];
  for (const s of r.sources)
    if (s.outcome === 'unavailable') lines.push(`  ${s.source} unavailable: ${s.reason}`);
  for (const group of groupFailures(r.failures)) {
    const where =
      group.sources.length === 1
        ? group.sources[0]
        : `${group.sources.length} sources (${group.sources.join(', ')})`;
    lines.push(`  ${where} failed (${group.kind}): ${group.message}`);
  }
  return lines.join('\n');
}

/** The hour's lifecycle evaluation in one phrase (docs/lifecycle.md), when this poll ran one. */
function lifecycleSummary(r: ClubReport): string | undefined {
  const l = r.lifecycle;
  if (!l) return undefined;
  if (l.outcome === 'evaluated')
    return `lifecycle evaluated (${l.read === 'all' ? 'read everything' : 'read what was noted'}): ${count(l.published, 'event')}`;
  if (l.outcome === 'waiting') return `lifecycle waiting: ${l.reason}`;
  return `lifecycle failed: ${l.error}`;
}

/** A backfill's progress in one phrase: its events this poll, and whether it carries on. */
function backfillSummary(r: ClubReport): string | undefined {
  const lanes = r.sources.flatMap((s) => (s.outcome !== 'unavailable' && s.backfill ? [s.backfill] : []));
  const first = lanes[0];
  if (!first) return undefined;
  const events = lanes.reduce((n, b) => n + b.events, 0);
  const pending = lanes.filter((b) => b.outcome !== 'completed').length;
  const state = pending === 0 ? 'done' : `${pending} of ${lanes.length} sources carry on at the next poll`;
  return `backfill from ${first.from}: ${count(events, 'event')}, ${state}`;
}

/** A paused club: why, since when and until when, and how to resume it now. */
function formatPause(r: ClubReport): string {
  const until = r.pause?.until ?? r.pausedUntil;
  const head = `${r.clubId}: paused until ${until}, nothing polled`;
  if (!r.pause) return head;
  const { kind, reason, source, consecutiveFailures } = r.pause;
  const why = kind === 'auth' ? 'credentials or API key rejected' : 'monthly request quota spent (429)';
  return [
    `${head}: ${why}`,
    `  ${source}: ${reason.split(`${source}: `).join('')} (${consecutiveFailures} in a row)`,
    '  fixed it? resume now: poll --resume (clubs file) or clubs resume --table NAME --club-id ID',
  ].join('\n');
}

export interface FailureGroup {
  readonly kind: string;
  readonly message: string;
  readonly sources: string[];
}

/**
 * The same upstream error met by several sources (a 503, a rejected key), said once with the
 * sources listed. Messages differ only by the operation name they start with, which is the source's.
 */
export function groupFailures(failures: readonly SourceFailure[]): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const f of failures) {
    const message = f.message.split(`${f.source}: `).join('');
    const key = `${f.kind}\u0000${message}`;
    const group = groups.get(key) ?? { kind: f.kind, message, sources: [] };
    group.sources.push(f.source);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** The change an event reports, in a few words. */
/** The change a lifecycle event announces, in a few words (docs/lifecycle.md). */
function lifecycleChange(detailType: string, d: Record<string, unknown>): string | undefined {
  switch (detailType) {
    case 'Member First Visit':
      return `first visit ${d.visitedAt} (started ${d.membershipStartDate})`;
    case 'Member Inactive':
      return `no visit for ${d.inactiveDays} days (last ${d.lastVisitAt ?? 'none seen'})`;
    case 'Member Returned':
      return `back ${d.visitedAt} after ${d.inactiveDays} days`;
    case 'Membership Expiring':
      return `${d.kind === 'expiry' ? 'expires' : 'minimum term ends'} ${d.date} (${d.daysLeft} days left)`;
    case 'Payment Recovered':
      return `payment ${d.paymentId} after ${d.failedResponse} ${d.failedPaymentId}`;
    case 'Prospect Trial Ending':
      return `trial ends ${d.trialEndDate} (${d.hoursLeft} h left)`;
    default:
      return undefined;
  }
}

export function describeEvent(e: BridgeEvent): string {
  const d = e.detail as Record<string, unknown>;
  const subject = (d.subject as { memberNumber?: string; prospectNumber?: string } | undefined) ?? {};
  const who = subject.memberNumber
    ? `member ${subject.memberNumber}`
    : subject.prospectNumber
      ? `prospect ${subject.prospectNumber}`
      : '';
  const change = (() => {
    const lifecycle = d.source === 'lifecycle' ? lifecycleChange(e.detailType, d) : undefined;
    if (lifecycle !== undefined) return lifecycle;
    if ('previousStatus' in d) return `${d.previousStatus ?? '-'} -> ${d.status}`;
    if ('reason' in d && 'paymentId' in d) return `${d.reason} "${d.response}" payment ${d.paymentId}`;
    if ('paymentId' in d) return `payment ${d.paymentId}${d.amount === undefined ? '' : ` ${d.amount}`}`;
    if ('posTransactionId' in d) return `sale ${d.posTransactionId} ${d.totalIncTax}`;
    if ('cancellationDate' in d) return `cancelled ${d.cancellationDate}`;
    if ('current' in d) return `opt-outs ${JSON.stringify(d.previous)} -> ${JSON.stringify(d.current)}`;
    if ('membershipName' in d) return `${d.membershipName}`;
    if ('amount' in d) return `amount ${d.amount}`;
    if ('reason' in d) return `${d.reason}`;
    if ('staleSource' in d) return `${d.staleSource} stale ${d.ageSeconds}s`;
    const data = d.data as Record<string, unknown> | undefined;
    if (data && 'Door' in data) return `door ${data.Door ?? '?'}`;
    return '';
  })();
  return [who, change].filter(Boolean).join('  ');
}
