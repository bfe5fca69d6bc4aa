/**
 * The operational verdict of a chaos run (issue 32): the operational events on the bus (Club
 * Credentials Rejected, Club Quota Low, Club Data Stale, Club Source Unavailable) against what the
 * run implies. In three runs of four the first publish of each operational event fails
 * (test/support/fault-sink.ts), on top of EventBridge's injected faults and the crashes.
 *
 * 1. Announced, then delivered. Every operational event a poll handed to a publish, when that poll
 *    then committed its state (closed its club session), reaches the bus under that eventId: it was
 *    delivered, or it is owed in that state and a later poll delivers it.
 * 2. Implied, then announced. The conditions come from the cursors the run committed, read after
 *    every poll around the faults (what the injected 401s, 429s, bent responses and failures left in
 *    the table), never from the events:
 *    - an unavailable mark: a Club Source Unavailable with its source and `since`;
 *    - a refusal recorded with its pause (a 401 or a 429): a Club Credentials Rejected, or a Club
 *      Quota Low (`rate-limited`), that began its episode: occurring at or after the club's latest
 *      success before the episode's first refusal, and at or before the refusal. An episode runs
 *      until a success comes strictly between two refusals: a poll's sources share its instant, so
 *      a success at a refusal's very instant may have come after it (episodeStart);
 *    - a failure recorded `staleAfterMs` or more after the source's last success (a pause aside): a
 *      Club Data Stale with that source and last success.
 * 3. Nothing made up. Each operational event on the bus matches a committed condition (the same
 *    mark, the same refusal instant, a failure after the same success), unless a poll that never
 *    committed its state published it (its observation was real and was lost with its state).
 */
import type { BridgeEvent } from '../../lambdas/events/catalog';
import type { Cursor } from '../../lambdas/state';

export interface OperationalCheck {
  /** Distinct operational events (by eventId) on the bus. */
  readonly checked: number;
  /** Of those, by detail-type. */
  readonly byType: Record<string, number>;
  /** Announcements and conditions that had to arrive (1. and 2.). */
  readonly required: number;
  readonly missing: string[];
  readonly spurious: string[];
}

export interface OperationalRun {
  /** Every event on the bus (the operational ones are picked out). */
  readonly delivered: readonly BridgeEvent[];
  /** The club's cursors as committed after each poll, in order. */
  readonly committed: readonly (readonly Cursor[])[];
  /** The run's poller processes: whether each committed its state, what it tried to publish. */
  readonly processes: readonly {
    readonly closed: boolean;
    readonly operational: readonly { readonly event: BridgeEvent }[];
  }[];
  readonly staleAfterMs: number;
}

const PAUSE_TYPE = { auth: 'Club Credentials Rejected', quota: 'Club Quota Low' } as const;
type PauseKind = keyof typeof PAUSE_TYPE;
const isPauseKind = (kind: string | undefined): kind is PauseKind => kind === 'auth' || kind === 'quota';

type Detail = Record<string, unknown> & { eventId: string; occurredAt: string };
const detailOf = (e: BridgeEvent) => e.detail as unknown as Detail;

interface Conditions {
  /** `source|since` of every unavailable mark. */
  readonly unavailable: Set<string>;
  /** Every refusal: kind, source and instant (ms), by `source|kind|at`. */
  readonly refusals: Map<string, { kind: PauseKind; atMs: number }>;
  /** `source|lastSuccessAt` of every failure recorded staleAfterMs after that success (kind@at). */
  readonly stale: Map<string, string[]>;
  /** `source|lastSuccessAt` of every failure (a pause aside) after that success. */
  readonly failedAfter: Set<string>;
  /** Every success instant (ms) of any source, ascending. */
  readonly successes: number[];
}

function conditionsOf(committed: readonly (readonly Cursor[])[], staleAfterMs: number): Conditions {
  const c: Conditions = {
    unavailable: new Set(),
    refusals: new Map(),
    stale: new Map(),
    failedAfter: new Set(),
    successes: [],
  };
  const successes = new Set<number>();
  for (const cursor of committed.flat()) {
    const { health, source } = cursor;
    if (health.lastSuccessAt) successes.add(Date.parse(health.lastSuccessAt));
    if (health.unavailable) c.unavailable.add(`${source}|${health.unavailable.since}`);
    const error = health.lastError;
    if (!error) continue;
    const atMs = Date.parse(error.at);
    if (isPauseKind(error.kind)) {
      if (health.pausedUntil && health.consecutiveFailures > 0)
        c.refusals.set(`${source}|${error.kind}|${error.at}`, { kind: error.kind, atMs });
      continue;
    }
    const since = health.lastSuccessAt;
    if (!since || atMs < Date.parse(since)) continue;
    c.failedAfter.add(`${source}|${since}`);
    if (atMs - Date.parse(since) >= staleAfterMs) {
      const seen = c.stale.get(`${source}|${since}`) ?? [];
      if (!seen.includes(`${error.kind}@${error.at}`)) seen.push(`${error.kind}@${error.at}`);
      c.stale.set(`${source}|${since}`, seen);
    }
  }
  c.successes.push(...[...successes].sort((a, b) => a - b));
  return c;
}

/**
 * The latest success before `atMs` (-Infinity when none). One at the refusal's very instant is not
 * known to have come before it: a poll's sources share the instant of its clock, and a source may
 * succeed after another was refused (the bridge then takes the refusal as part of the episode
 * already announced), or before it (the bridge announces a new one at the refusal): either is right.
 */
function latestSuccess(successes: readonly number[], atMs: number): number {
  let latest = Number.NEGATIVE_INFINITY;
  for (const s of successes) if (s < atMs) latest = s;
  return latest;
}

/**
 * The first refusal of the episode a refusal of `kind` at `atMs` belongs to: refusals of the kind
 * (any source) follow one another in an episode until a success comes strictly between two of
 * them. A success at a refusal's very instant does not end it: it may have come after the refusal
 * (latestSuccess), and the bridge then takes the next refusal as part of the same episode.
 */
function episodeStart(c: Conditions, kind: PauseKind, atMs: number): number {
  const earlier = [...c.refusals.values()]
    .filter((r) => r.kind === kind && r.atMs < atMs)
    .map((r) => r.atMs)
    .sort((a, b) => b - a);
  let start = atMs;
  for (const r of earlier) {
    if (c.successes.some((s) => s > r && s < start)) break;
    start = r;
  }
  return start;
}

export function checkOperational(run: OperationalRun): OperationalCheck {
  const delivered = new Map<string, BridgeEvent>();
  for (const e of run.delivered) if (e.detail.source === 'bridge') delivered.set(e.detail.eventId, e);
  const events = [...delivered.values()];
  const missing: string[] = [];
  const spurious: string[] = [];
  let required = 0;

  // 1. Announced by a poll that committed its state: delivered under that eventId.
  const announced = new Map<string, BridgeEvent>();
  const unrecorded = new Set<string>();
  for (const p of run.processes) {
    for (const { event } of p.operational) {
      if (p.closed) announced.set(event.detail.eventId, event);
      else unrecorded.add(event.detail.eventId);
    }
  }
  for (const [id, event] of announced) {
    required++;
    if (!delivered.has(id))
      missing.push(`${event.detailType} ${id}: announced by a poll that committed, never delivered`);
  }

  // 2. Implied by the committed state: announced.
  const c = conditionsOf(run.committed, run.staleAfterMs);
  const ofType = (type: string) => events.filter((e) => e.detailType === type).map(detailOf);
  for (const key of c.unavailable) {
    required++;
    const [source, since] = key.split('|');
    const found = ofType('Club Source Unavailable').some(
      (d) => d.unavailableSource === source && d.since === since,
    );
    if (!found)
      missing.push(`Club Source Unavailable: ${source} unavailable since ${since}, never announced`);
  }
  for (const [key, { kind, atMs }] of c.refusals) {
    required++;
    const fromMs = latestSuccess(c.successes, episodeStart(c, kind, atMs));
    const found = ofType(PAUSE_TYPE[kind]).some((d) => {
      const occurred = Date.parse(d.occurredAt);
      return (kind === 'auth' || d.reason === 'rate-limited') && occurred >= fromMs && occurred <= atMs;
    });
    if (!found) {
      const announcedAt = ofType(PAUSE_TYPE[kind]).map((d) => d.occurredAt);
      missing.push(
        `${PAUSE_TYPE[kind]}: refusal ${key} in an episode never announced (its episode from the success at ${Number.isFinite(fromMs) ? new Date(fromMs).toISOString() : 'none'}; announced: ${announcedAt.join(', ') || 'none'})`,
      );
    }
  }
  for (const [key, failures] of c.stale) {
    required++;
    const [source, since] = key.split('|');
    const found = ofType('Club Data Stale').some(
      (d) => d.staleSource === source && d.lastSuccessAt === since,
    );
    if (!found)
      missing.push(
        `Club Data Stale: ${source} failing ${run.staleAfterMs / 60_000}+ min after its success at ${since}, never announced (failures ${failures.join(', ')})`,
      );
  }

  // 3. Every operational event explained by a committed condition, or by a poll that lost its state.
  for (const event of events) {
    const d = detailOf(event);
    if (unrecorded.has(d.eventId)) continue;
    let explained: boolean;
    switch (event.detailType) {
      case 'Club Source Unavailable':
        explained = c.unavailable.has(`${d.unavailableSource}|${d.since}`);
        break;
      case 'Club Credentials Rejected':
      case 'Club Quota Low': {
        const kind: PauseKind = event.detailType === 'Club Credentials Rejected' ? 'auth' : 'quota';
        const atMs = Date.parse(d.occurredAt);
        explained =
          (kind === 'auth' || d.reason === 'rate-limited') &&
          [...c.refusals.values()].some((r) => r.kind === kind && r.atMs === atMs);
        break;
      }
      case 'Club Data Stale':
        explained =
          c.failedAfter.has(`${d.staleSource}|${d.lastSuccessAt}`) &&
          Number(d.ageSeconds) * 1000 >= run.staleAfterMs - 1000;
        break;
      default:
        explained = false;
    }
    if (!explained)
      spurious.push(
        `${event.detailType} ${d.eventId}: no such condition committed (${JSON.stringify(d).slice(0, 300)})`,
      );
  }

  const byType: Record<string, number> = {};
  for (const e of events) byType[e.detailType] = (byType[e.detailType] ?? 0) + 1;
  return { checked: events.length, byType, required, missing, spurious };
}
