/**
 * The answer to "why did (or didn't) an event fire?" in words, from what the bridge knows of a
 * subject (./subject-facts.ts): each sentence states a fact of the state table and what it means
 * for the subject's next event. Pure: the same facts give the same text.
 */
import { redactKnownSecrets } from '../../lambdas/common/redact';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../lambdas/common/time-units';
import { failingWords, type LifecycleRecord } from './lifecycle-facts';
import { PAYMENT_WINDOW_MS } from './payment-facts';
import type { PaymentSighting, RefundSighting, SourceFacts, SubjectFacts } from './subject-facts';

const minutes = (ms: number) => {
  const rounded = Math.round(ms / MINUTE_MS) * MINUTE_MS;
  const days = rounded / DAY_MS;
  const hours = rounded / HOUR_MS;
  if (Number.isInteger(days)) return `${days} day${days === 1 ? '' : 's'}`;
  if (Number.isInteger(hours)) return `${hours} hour${hours === 1 ? '' : 's'}`;
  return `${rounded / MINUTE_MS} minutes`;
};

const what = (f: SubjectFacts) => `${f.subject.kind} ${f.subject.id}`;

/** What the source's state means for the subject's next change. */
function sourceWords(s: SourceFacts, f: SubjectFacts): string[] {
  const out: string[] = [];
  if (!s.enabled)
    out.push(
      `The ${s.source} source is not enabled for club ${f.clubId}: nothing about ${what(f)} is published.`,
    );
  if (f.pause) {
    const why = f.pause.kind === 'auth' ? 'its credentials were rejected' : 'its API quota is spent';
    out.push(
      `The club is paused until ${f.pause.until} (${why} on ${f.pause.source}): nothing is polled before then; the polls after it catch up from the watermarks.`,
    );
  }
  if (!s.polled) {
    out.push(`The ${s.source} source has never been polled for this club.`);
    return out;
  }
  const u = s.health?.unavailable;
  if (u)
    out.push(
      `The ${s.source} endpoint has been unavailable for this club since ${u.since} (${u.kind}: ${redactKnownSecrets(u.reason).slice(0, 160)}); it is tried again at ${u.retryAt}.`,
    );
  if (!s.baselineDone)
    out.push(
      `The ${s.source} source has not finished its silent baseline: what it sees until then is recorded, not announced.`,
    );
  const failures = s.health?.consecutiveFailures ?? 0;
  const last = s.health?.lastError;
  if (failures > 0 && last)
    out.push(
      `Its last ${failures} poll${failures === 1 ? '' : 's'} failed; the last error (${last.at}): ${last.kind}: ${redactKnownSecrets(last.message).slice(0, 160)}.`,
    );
  const success = s.health?.lastSuccessAt
    ? `last succeeded ${s.health.lastSuccessAt}`
    : 'has not succeeded yet';
  out.push(
    `The ${s.source} source ${success}; its watermark is ${s.watermark ?? 'not set'} and every poll re-reads the ${minutes(s.lookbackMs)} before it${s.sweep ? `, with a sweep of the last ${minutes(s.sweep.windowMs)} every ${minutes(s.sweep.everyMs)}` : ''}.`,
  );
  return out;
}

function snapshotWords(f: SubjectFacts): string[] {
  const out: string[] = [];
  const snap = f.snapshot;
  if (!snap) {
    out.push(
      f.intent.length > 0
        ? `The bridge has seen ${what(f)} once, in a poll that stopped before its commit: the next poll that reads the ${f.subject.kind} publishes what it was publishing (same eventIds) and records it.`
        : `The bridge has no snapshot of ${what(f)}: it has not seen the ${f.subject.kind} yet (a ${f.subject.kind} is read when its ${f.subject.kind === 'member' ? 'LastUpdatedUtcDateTime' : 'last status update'} moves past the watermark).`,
    );
    return out;
  }
  const fields = Object.entries(snap.fields)
    .map(([k, v]) => `${k} ${v === null ? 'none' : JSON.stringify(v)}`)
    .join(', ');
  out.push(
    `The bridge compares ${what(f)} with the snapshot taken ${snap.takenAt}: ${fields}; ${snap.changes} change${snap.changes === 1 ? '' : 's'} seen since it was first seen${snap.firstStatus ? ` (in status ${snap.firstStatus})` : ''}.`,
  );
  out.push(
    'A change is published by the first poll that reads it; a status that changes and changes back between two polls is not seen (polling sees states, not history).',
  );
  if (f.intent.length > 0)
    out.push(
      `A poll stopped after publishing ${f.intent.length === 1 ? 'a change' : `${f.intent.length} changes`} and before its commit: the next poll that reads the ${f.subject.kind} publishes it again with the same eventIds, then records it.`,
    );
  if (f.published.length === 0) {
    const kinds = list(f.kept.onSnapshot, 'or');
    out.push(
      snap.changes === 0
        ? `No ${kinds} is on record for it: it was first seen silently (the baseline) and has not changed since, or they were published before the bridge kept this log.`
        : `No ${kinds} is on record for it (they were published before the bridge kept this log).`,
    );
  }
  return out;
}

/** `a, b and c` (or `a, b or c`). */
function list(items: readonly string[], and = 'and'): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} ${and} ${items.at(-1)}`;
}

/** Which kinds of events the table keeps for the subject, and which it cannot tell about. */
function keptWords(f: SubjectFacts): string {
  const k = f.kept;
  const whose = f.subject.kind === 'payment' ? 'it' : 'its payments';
  const kept = [
    ...(k.onSnapshot.length ? [`the last three of its ${list(k.onSnapshot, 'or')} (on its snapshot)`] : []),
    ...(k.payments.length
      ? [
          `the ${list(k.payments, 'or')} of ${whose} seen in the last ${minutes(PAYMENT_WINDOW_MS)} (the payment window; older ones are not kept)`,
        ]
      : []),
    ...(k.lifecycle.length ? [`its ${list(k.lifecycle, 'or')} facts (the lifecycle document)`] : []),
  ];
  return `What the bridge keeps per ${f.subject.kind}: ${list(kept)}. It does not keep ${list(k.notKept, 'or')} per ${f.subject.kind} (filed by a hash of the record): explain cannot say whether one was published, and none listed here says nothing about them.`;
}

const NOT_MARKED = 'the silent baseline, or a release before the bridge marked what it published';

function sightingWords(p: PaymentSighting): string {
  const head = `Payment ${p.paymentId} was seen with Response ${JSON.stringify(p.response)} (payment time ${p.at})`;
  if (p.announcement === 'pending') return `${head}: pending, no event until its Response settles.`;
  if (p.announcement === 'published') return `${head}: ${p.detailType} ${p.eventId}.`;
  return `${head}: recorded without an event (${NOT_MARKED}): no ${p.detailType} was published for it.`;
}

function refundWords(r: RefundSighting): string {
  const head = `Payment ${r.paymentId} was seen refunded (payment time ${r.at})`;
  return r.announcement === 'published'
    ? `${head}: Payment Refunded ${r.eventId}.`
    : `${head}: recorded without an event (${NOT_MARKED}): no Payment Refunded was published for it.`;
}

function paymentWords(f: SubjectFacts): string[] {
  const window = minutes(PAYMENT_WINDOW_MS);
  if (f.payments.length === 0 && f.refunds.length === 0)
    return [
      f.subject.kind === 'payment'
        ? `The bridge has no sighting of payment ${f.subject.id} in its window (the last ${window}): not seen yet, or older than the window (not kept).`
        : `The bridge has no payment of member ${f.subject.id} in its window (the last ${window}).`,
    ];
  return [...f.payments.map(sightingWords), ...f.refunds.map(refundWords)];
}

/** What became of a recorded lifecycle fact's event. */
function recordWords(r: LifecycleRecord, f: SubjectFacts): string {
  const head = `${r.detailType} for ${r.about}`;
  switch (r.announcement) {
    case 'published':
      return `${head} is recorded as announced: eventId ${r.eventId}.`;
    case 'silent':
      return `${head} was passed silently by the first evaluation (it was underway when tracking began, ${f.lifecycle?.trackedSince}): no event was published for it, and none will be.`;
    case 'pending':
      return `${head} is recorded as announced by an evaluation whose hour the club state does not record as evaluated (it stopped before its end): the next evaluation publishes it, under the eventId it was given; none is shown until then.`;
    default:
      return `${head} is recorded, and came due before tracking began: the first evaluation passed it silently if ${what(f)} qualified then, or a later one announced it if ${what(f)} came to qualify after (a late qualifier); the lifecycle base was written before the bridge kept which, so no eventId is shown.`;
  }
}

function lifecycleWords(f: SubjectFacts): string[] {
  const l = f.lifecycle;
  if (!l) return [];
  if (!l.enabled) return [`Lifecycle events are off for club ${f.clubId} (lifecycle.enabled is false).`];
  if (l.baseUnreadable)
    return [
      "The club's lifecycle base cannot be read by this release (a later release wrote it, or it is damaged): the next evaluation starts over silently, as a first one, and replaces it (docs/lifecycle.md); what it held of the subject is not shown.",
      ...failingWords(l),
    ];
  if (!l.trackedSince)
    return [
      'No lifecycle evaluation has run for this club yet: the first one waits for a complete poll of members, prospects, visits and payment history, and is silent (what is underway then is the baseline).',
    ];
  const out = [
    `Lifecycle events are tracked since ${l.trackedSince} (club local time); what was underway then is the baseline and is not announced.`,
    ...failingWords(l),
  ];
  if (l.lastEvaluation)
    out.push(
      `The rules were last evaluated in the hour from ${l.lastEvaluation}; the next evaluation is the first complete poll from ${l.nextEvaluation} on (an evaluation waits for a poll in which members, prospects, visits and payment history all completed).`,
    );
  const kept = l.kept
    ? Object.entries(l.kept)
        .map(([k, v]) => `${k} ${JSON.stringify(v)}`)
        .join(', ')
    : '';
  out.push(
    kept
      ? `The lifecycle state (last kept ${l.keptAt ?? 'never'}) holds for ${what(f)}: ${kept}. Visits seen since its base was written (at most 12 hours before) are read from the seen set at each evaluation.`
      : `The lifecycle state holds nothing for ${what(f)} yet (no visit, payment outcome or announcement recorded).`,
  );
  for (const r of l.recorded) out.push(recordWords(r, f));
  if (l.nextDueAt)
    out.push(
      `As things stand, the next time-based event for ${what(f)} comes due at ${l.nextDueAt} and is announced by the first evaluation after it (within the hour).`,
    );
  else
    out.push(
      `No time-based event is due for ${what(f)} as things stand (${f.subject.kind === 'member' ? 'Member Inactive and Membership Expiring need status Active, and no CancellationDate for an expiry' : 'Prospect Trial Ending needs status OnTrial and a TrialEndDate ahead'}).`,
    );
  return out;
}

/** The sentences of an explanation, in the order they are printed. */
export function subjectWords(f: SubjectFacts): string[] {
  const out =
    f.subject.kind === 'payment'
      ? paymentWords(f)
      : [...snapshotWords(f), ...(f.subject.kind === 'member' ? paymentWords(f) : []), ...lifecycleWords(f)];
  out.push(keptWords(f));
  for (const q of f.quarantined)
    out.push(
      `A record naming ${what(f)} was quarantined at ${q.at}: ${redactKnownSecrets(q.reason).slice(0, 200)}. Its events wait until the record is valid.`,
    );
  return [...out, ...sourceWords(f.source, f)];
}

/** The whole explanation as text: the published events, then the sentences. */
export function renderExplanation(f: SubjectFacts): string {
  const lines = [`club ${f.clubId}, ${what(f)} (as of ${f.observedAt})`];
  if (f.published.length > 0) {
    lines.push('  published (newest first, the last three kept; the time is the poll that published it):');
    for (const e of f.published) lines.push(`    ${e.observedAt}  ${e.detailType.padEnd(34)} ${e.eventId}`);
  }
  for (const sentence of subjectWords(f)) lines.push(`  - ${sentence}`);
  return `${lines.join('\n')}\n`;
}
