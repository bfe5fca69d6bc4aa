/**
 * Polling a club: every enabled source in turn (README, "What it does"), with the club-level rules
 * around it: a club whose credentials are rejected or whose quota is spent is paused with back-off
 * instead of hammering the API, operations hears about it once (Club Credentials Rejected, Club
 * Quota Low, Club Data Stale), and every data request is counted against the club's monthly quota.
 *
 * A source whose endpoint is missing for the club is not a failure of the club: a 404, or a 403
 * that blames no credential (EndpointUnavailableError), marks that source unavailable on its cursor
 * (`health.unavailable`), and so do, for an experimental source only, a 400 and a response that is
 * not a usable page (InvalidResponseError). For a source the API document describes, a 400 is more
 * likely a bug of ours (a bad query) and an unusable page a broken upstream: those stay failures.
 * An unavailable source is logged once (WARN), announced once (Club Source Unavailable), reported
 * with outcome 'unavailable', and not polled again before its `retryAt` (every
 * UNAVAILABLE_RETRY_MS); a poll that then succeeds clears the mark. The club's other sources poll
 * and publish as usual, and the club's outcome stays 'ok'.
 */

import { type ClubConfig, PLAN_QUOTAS } from '../clubs/club-config';
import { logger } from '../common/logger';
import { type BridgeEvent, DETAIL_TYPES, type SOURCE_UNAVAILABLE_KINDS } from '../events/catalog';
import { createEvent } from '../events/envelope';
import type { EventSink } from '../events/publisher';
import {
  AuthError,
  BadRequestError,
  GymApiError,
  InvalidResponseError,
  QuotaExceededError,
} from '../gym-api';
import { EndpointUnavailableError } from '../gym-api/errors';
import { enabledSources, SOURCES, type SourceDefinition } from '../sources';
import {
  ConcurrentModificationError,
  type Cursor,
  newCursor,
  type SourceName,
  type SourceUnavailable,
  type StateStore,
} from '../state/store';
import type { ClientFactory } from './client-factory';
import { fingerprint, pollSource, type SourceReport } from './poll-source';
import { sourceContext } from './source-context';

export interface PollClubDeps {
  readonly store: StateStore;
  readonly sink: EventSink;
  readonly clients: ClientFactory;
  /** Domain clock (UTC ms). @default Date.now */
  readonly now?: () => number;
  /** Lease owner id of this poller. */
  readonly owner: string;
}

export interface PollClubOptions {
  /** Real-time epoch ms by which the poll must return. */
  readonly deadlineMs: number;
  /** Only these sources (intersected with the club's). */
  readonly sources?: readonly SourceName[];
  readonly backfillFromMs?: number;
  readonly pageSize?: number;
  /** Poll even if the club is paused. @default false */
  readonly ignorePause?: boolean;
  /** Poll sources marked unavailable before their retryAt. @default false */
  readonly retryUnavailable?: boolean;
  /** A source with no success for this long is reported stale (once). @default 30 minutes */
  readonly staleAfterMs?: number;
  /** Share of the monthly quota at which Club Quota Low is emitted (once a month). @default 0.8 */
  readonly quotaAlertShare?: number;
}

export interface SourceFailure {
  readonly source: SourceName;
  readonly kind: FailureKind;
  readonly message: string;
}

/**
 * A source whose endpoint is missing or unusable for the club: not a failure. `checked` is true
 * when this poll asked the endpoint (and found it still or newly unavailable), false when the source
 * was not polled because its `retryAt` has not come.
 */
export interface UnavailableSourceReport extends Omit<SourceReport, 'outcome' | 'reason'> {
  readonly outcome: 'unavailable';
  /** One line for humans: what the endpoint answered and when it is tried again. */
  readonly reason: string;
  readonly unavailable: SourceUnavailable;
  readonly checked: boolean;
}

export type ClubSourceReport = SourceReport | UnavailableSourceReport;

/** Why a club is not polled, and until when. */
export interface ClubPause {
  /** Not polled before this (UTC ISO). */
  readonly until: string;
  /** auth: credentials or API key rejected (401); quota: the monthly quota is spent (429). */
  readonly kind: 'auth' | 'quota';
  /** The error that paused it, as the client reported it (credentials redacted). */
  readonly reason: string;
  /** The source whose poll was refused. */
  readonly source: SourceName;
  /** When it was refused (UTC ISO), when known. */
  readonly since?: string;
  /** Refusals in a row (the back-off doubles with each). */
  readonly consecutiveFailures: number;
}

export interface ClubReport {
  readonly clubId: string;
  readonly outcome: 'ok' | 'failed' | 'paused' | 'disabled';
  readonly sources: ClubSourceReport[];
  readonly failures: SourceFailure[];
  readonly requests: number;
  readonly tokenRequests: number;
  readonly quotaUsed?: number;
  readonly pausedUntil?: string;
  /** Set when the club is paused (outcome 'paused'), or was paused by this poll (outcome 'failed'). */
  readonly pause?: ClubPause;
  /** Operational events (credentials, quota, staleness) published during this poll. */
  readonly operationalEvents: BridgeEvent[];
}

export type FailureKind =
  | 'auth'
  | 'quota'
  | 'unavailable'
  | 'invalid-response'
  | 'bad-request'
  | 'conflict'
  | 'publish'
  | 'store'
  | 'internal';

const MINUTE = 60_000;

/** Lease name of a whole-club poll (a source lease is named after its source). */
export const CLUB_LEASE = 'CLUB';
/** Sources of one club polled at the same time, after the first. */
export const SOURCE_CONCURRENCY = 8;

export function failureKind(err: unknown): FailureKind {
  if (err instanceof AuthError) return 'auth';
  if (err instanceof QuotaExceededError) return 'quota';
  if (err instanceof ConcurrentModificationError) return 'conflict';
  if (err instanceof GymApiError) {
    switch (err.name) {
      case 'BadRequestError':
        return 'bad-request';
      case 'InvalidResponseError':
        return 'invalid-response';
      default:
        return 'unavailable';
    }
  }
  if (err instanceof Error && err.name === 'PublishError') return 'publish';
  if (err instanceof Error && err.name === 'StoreError') return 'store';
  return 'internal';
}

/** Back-off of a paused club: 5 min doubling per consecutive failure, capped. */
export function pauseMs(kind: 'auth' | 'quota', consecutiveFailures: number): number {
  const cap = kind === 'auth' ? 6 * 60 * MINUTE : 60 * MINUTE;
  return Math.min(cap, 5 * MINUTE * 2 ** Math.max(0, consecutiveFailures - 1));
}

/** How long a source whose endpoint is missing waits before it is tried again. */
export const UNAVAILABLE_RETRY_MS = 6 * 60 * MINUTE;

/**
 * Whether this error means the source's endpoint is not there for the club (and how), rather than
 * a failure: 404 and credential-less 403 for any source; 400 and an unusable response only for an
 * experimental source, whose parameters and shape nobody has seen.
 */
export function unavailability(
  err: unknown,
  source: Pick<SourceDefinition, 'experimental'>,
): { kind: SourceUnavailable['kind']; status?: number } | undefined {
  const status = err instanceof GymApiError && err.status !== undefined ? { status: err.status } : {};
  if (err instanceof EndpointUnavailableError) return { kind: err.reason, ...status };
  if (!source.experimental) return undefined;
  if (err instanceof BadRequestError && err.status === 400) return { kind: 'bad-request', ...status };
  if (err instanceof InvalidResponseError) return { kind: 'unusable-response', ...status };
  return undefined;
}

/** Longest upstream Retry-After honoured (a quota month, plus a day). */
export const MAX_RETRY_AFTER_MS = 32 * 24 * 60 * MINUTE;

const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);

export async function pollClub(
  deps: PollClubDeps,
  club: ClubConfig,
  options: PollClubOptions,
): Promise<ClubReport> {
  const now = deps.now ?? Date.now;
  const startMs = now();
  const base = { clubId: club.clubId, sources: [] as ClubSourceReport[], failures: [] as SourceFailure[] };
  const operationalEvents: BridgeEvent[] = [];
  if (!club.enabled) {
    return { ...base, outcome: 'disabled', requests: 0, tokenRequests: 0, operationalEvents };
  }
  const enabled = enabledSources(club).filter((s) => !options.sources || options.sources.includes(s));
  const cursors = await deps.store.listCursors(club.clubId);
  const order = pollOrder(enabled, cursors);
  const pause = activePause(cursors, startMs);
  if (pause && !options.ignorePause) {
    return {
      ...base,
      outcome: 'paused',
      requests: 0,
      tokenRequests: 0,
      pausedUntil: pause.until,
      pause,
      operationalEvents,
    };
  }

  let requests = 0;
  let tokenRequests = 0;
  const client = deps.clients.forClub(club, (e) => {
    if (e.kind === 'data') requests++;
    else tokenRequests++;
  });
  const ctx = {
    clubId: club.clubId,
    timeZone: club.timeZone,
    unstatedZone: club.unstatedZone,
    unstatedZoneConfirmed: club.unstatedZoneConfirmed,
    piiPolicy: club.piiPolicy,
    ...(club.paymentRules ? { paymentRules: club.paymentRules } : {}),
  };
  const publishOps = async (event: BridgeEvent) => {
    try {
      await deps.sink.publish([event]);
      operationalEvents.push(event);
    } catch (err) {
      logger.error('operational event not published', {
        clubId: club.clubId,
        detailType: event.detailType,
        err,
      });
    }
  };

  let pausedUntil: string | undefined;
  let pausedBy: ClubPause | undefined;
  const staleAfterMs = options.staleAfterMs ?? 30 * MINUTE;
  const reportStale = async (cursor: Cursor | undefined) => {
    const stale = cursor ? staleEvent(club, cursor, now(), staleAfterMs) : undefined;
    if (stale && cursor) {
      await publishOps(stale);
      await markStaleNotified(deps.store, cursor, now()).catch((err: unknown) => {
        logger.error('could not mark the stale notice', { clubId: club.clubId, source: cursor.source, err });
      });
    }
  };
  // Each source's poll runs under the club lease: taken once, so no source lease and no second
  // cursor read per source (the listing above, read before the lease, is re-read after it).
  const leaseTtl = Math.max(60_000, options.deadlineMs - Date.now() + 60_000);
  if (!(await deps.store.acquireLease(club.clubId, CLUB_LEASE, deps.owner, leaseTtl, Date.now()))) {
    return {
      ...base,
      sources: order.map((name) => skippedReport(name, 'another poller holds the club lease')),
      outcome: 'ok',
      requests: 0,
      tokenRequests: 0,
      operationalEvents,
    };
  }
  let stopped = false;
  let opsPublished = false;
  const reports = new Map<SourceName, ClubSourceReport>();
  try {
    const current = new Map((await deps.store.listCursors(club.clubId)).map((c) => [c.source, c]));
    // Sources marked unavailable wait for their retryAt without a request.
    const toPoll: SourceName[] = [];
    for (const name of order) {
      const mark = current.get(name)?.health.unavailable;
      if (mark && Date.parse(mark.retryAt) > startMs && !options.retryUnavailable) {
        reports.set(name, unavailableReport(name, mark, false));
      } else toPoll.push(name);
    }
    const markUnavailable = async (
      name: SourceName,
      err: unknown,
      cause: { kind: SourceUnavailable['kind']; status?: number },
    ): Promise<void> => {
      const error = err instanceof Error ? err.message : String(err);
      const at = now();
      const recorded = await recordUnavailable(deps.store, club.clubId, name, cause, error, at).catch(
        (storeErr: unknown) => {
          logger.error('could not record an unavailable source', {
            clubId: club.clubId,
            source: name,
            error,
            err: storeErr,
          });
          return undefined;
        },
      );
      const mark = recorded?.mark ?? unavailableMark(undefined, cause, error, at);
      reports.set(name, unavailableReport(name, mark, true));
      const experimental = SOURCES[name].experimental === true;
      if (recorded && !recorded.fresh) {
        logger.info('source endpoint still unavailable', {
          clubId: club.clubId,
          source: name,
          error,
          retryAt: mark.retryAt,
        });
        return;
      }
      // Once per episode: the first time it is found unavailable (a store that could not record it
      // says so above; the next poll then tries again).
      logger.warn('source endpoint unavailable for this club: its other sources go on', {
        clubId: club.clubId,
        source: name,
        kind: mark.kind,
        ...(mark.status === undefined ? {} : { status: mark.status }),
        experimental,
        error,
        retryAt: mark.retryAt,
      });
      if (recorded) await publishOps(unavailableEvent(club, name, mark, experimental, now()));
    };
    const clearUnavailable = async (name: SourceName): Promise<void> => {
      const cleared = await clearUnavailableMark(deps.store, club.clubId, name).catch((err: unknown) => {
        logger.error('could not clear the unavailable mark of a source that answered', {
          clubId: club.clubId,
          source: name,
          err,
        });
        return undefined;
      });
      if (cleared) {
        logger.info('source endpoint available again', {
          clubId: club.clubId,
          source: name,
          since: cleared.since,
        });
      }
    };
    const pollOne = async (name: SourceName): Promise<void> => {
      if (stopped) {
        reports.set(name, skippedReport(name, 'the club was paused during this poll'));
        return;
      }
      if (Date.now() > options.deadlineMs - 3000) {
        // Out of time: said, not silent. pollOrder puts these first next time.
        reports.set(name, skippedReport(name, 'deadline reached before this source'));
        return;
      }
      const source = SOURCES[name];
      try {
        const report = await pollSource(
          { store: deps.store, sink: deps.sink, client, now, owner: deps.owner },
          ctx,
          source,
          {
            deadlineMs: options.deadlineMs,
            leaseHeld: true,
            cursor: current.get(name) ?? newCursor(club.clubId, name),
            ...(options.backfillFromMs === undefined ? {} : { backfillFromMs: options.backfillFromMs }),
            ...(options.pageSize ? { pageSize: options.pageSize } : {}),
          },
        );
        reports.set(name, report);
        if (report.outcome !== 'skipped' && current.get(name)?.health.unavailable)
          await clearUnavailable(name);
        // A source that keeps finishing incomplete (rows moving under its scans) is not succeeding.
        if (report.outcome === 'incomplete') await reportStale(await deps.store.getCursor(club.clubId, name));
      } catch (err) {
        const cause = unavailability(err, source);
        if (cause) {
          await markUnavailable(name, err, cause);
          return;
        }
        const kind = failureKind(err);
        const reason = err instanceof Error ? err.message : String(err);
        base.failures.push({ source: name, kind, message: reason });
        logger.error('source poll failed', { clubId: club.clubId, source: name, kind, error: reason });
        // A 429 that says when the quota comes back (e.g. the next month) is honoured: no polls before.
        const retryAfterMs = err instanceof QuotaExceededError ? err.retryAfterMs : undefined;
        const cursor = await recordFailure(
          deps.store,
          club.clubId,
          name,
          kind,
          reason,
          now(),
          retryAfterMs,
        ).catch((storeErr: unknown) => {
          // The failure is in the report either way; a store that cannot record it must not hide it.
          logger.error('could not record a failed poll', {
            clubId: club.clubId,
            source: name,
            err: storeErr,
          });
          return undefined;
        });
        if (kind === 'auth' || kind === 'quota') {
          // The other sources would be refused the same way: those not started yet are not.
          stopped = true;
          pausedUntil ??= cursor?.health.pausedUntil;
          if (!pausedBy && cursor?.health.pausedUntil) {
            pausedBy = {
              until: cursor.health.pausedUntil,
              kind,
              reason,
              source: name,
              since: new Date(now()).toISOString(),
              consecutiveFailures: cursor.health.consecutiveFailures,
            };
          }
          const failures = cursor?.health.consecutiveFailures ?? 1;
          if (failures === 1 && cursor?.health.pausedUntil && !opsPublished) {
            opsPublished = true;
            await publishOps(
              operationalEvent(
                club,
                kind,
                err,
                failures,
                cursor.health.pausedUntil,
                now(),
                await quotaUsed(deps, club, now()),
              ),
            );
          }
          return;
        }
        await reportStale(cursor);
      }
    };
    // The first source alone (a rejected key or a spent quota then costs one request, not one per
    // source), then the others side by side: a poll takes about as long as its slowest source.
    const [first, ...rest] = toPoll;
    if (first) await sourceContext.run(first, () => pollOne(first));
    let next = 0;
    const worker = async () => {
      while (next < rest.length) {
        const name = rest[next++]!;
        await sourceContext.run(name, () => pollOne(name));
      }
    };
    await Promise.all(Array.from({ length: Math.min(SOURCE_CONCURRENCY, rest.length) }, worker));
  } finally {
    await deps.store.releaseLease(club.clubId, CLUB_LEASE, deps.owner).catch((err: unknown) => {
      // It expires by itself at the deadline plus a minute.
      logger.error('could not release the club lease', { clubId: club.clubId, err });
    });
  }
  for (const name of order) {
    const report = reports.get(name);
    if (report) base.sources.push(report);
  }

  const month = monthOf(now());
  let quotaUsedNow: number | undefined;
  if (requests > 0) {
    // Bookkeeping: a store error here is logged, never turned into a failed poll (the events of
    // this poll are published and committed already).
    try {
      const used = await deps.store.addQuotaUsage(club.clubId, month, requests);
      quotaUsedNow = used;
      const limit = PLAN_QUOTAS[club.plan];
      const alertShare = options.quotaAlertShare ?? 0.8;
      if (used / limit >= alertShare) {
        const mark = fingerprint(`OPS|quota-threshold|${month}`);
        const seen = await deps.store.filterSeen(club.clubId, 'members', [mark], Math.floor(now() / 1000));
        if (!seen.has(mark)) {
          await publishOps(quotaEvent(club, 'threshold', used, now()));
          await deps.store.putSeen(club.clubId, 'members', [mark], Math.floor(now() / 1000) + 40 * 86_400);
        }
      }
    } catch (err) {
      logger.error('quota accounting failed', { clubId: club.clubId, requests, err });
    }
  }
  return {
    ...base,
    outcome: base.failures.length > 0 ? 'failed' : 'ok',
    requests,
    tokenRequests,
    ...(quotaUsedNow === undefined ? {} : { quotaUsed: quotaUsedNow }),
    ...(pausedUntil ? { pausedUntil } : {}),
    ...(pausedBy ? { pause: pausedBy } : {}),
    operationalEvents,
  };
}

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

function skippedReport(source: SourceName, reason: string): SourceReport {
  return {
    source,
    outcome: 'skipped',
    reason,
    pages: 0,
    records: 0,
    events: 0,
    quarantined: 0,
    attempts: 0,
    publishedEvents: [],
  };
}

/** The club's pause in force (the one that ends last), with the error that caused it. */
export function activePause(cursors: readonly Cursor[], nowMs: number): ClubPause | undefined {
  let pause: ClubPause | undefined;
  for (const c of cursors) {
    const until = c.health.pausedUntil;
    if (!until || Date.parse(until) <= nowMs) continue;
    if (pause && Date.parse(pause.until) >= Date.parse(until)) continue;
    const err = c.health.lastError;
    pause = {
      until,
      kind: err?.kind === 'quota' ? 'quota' : 'auth',
      reason: err?.message ?? 'paused',
      source: c.source,
      ...(err?.at ? { since: err.at } : {}),
      consecutiveFailures: c.health.consecutiveFailures,
    };
  }
  return pause;
}

function unavailableReport(
  source: SourceName,
  mark: SourceUnavailable,
  checked: boolean,
): UnavailableSourceReport {
  const status = mark.status === undefined ? '' : `HTTP ${mark.status}, `;
  return {
    source,
    outcome: 'unavailable',
    reason: `endpoint unavailable (${status}${mark.kind}) since ${mark.since}; next try after ${mark.retryAt}`,
    unavailable: mark,
    checked,
    pages: 0,
    records: 0,
    events: 0,
    quarantined: 0,
    attempts: checked ? 1 : 0,
    publishedEvents: [],
  };
}

function unavailableMark(
  previous: SourceUnavailable | undefined,
  cause: { kind: SourceUnavailable['kind']; status?: number },
  error: string,
  nowMs: number,
): SourceUnavailable {
  const at = new Date(nowMs).toISOString();
  return {
    kind: cause.kind,
    reason: error.slice(0, 500),
    ...(cause.status === undefined ? {} : { status: cause.status }),
    since: previous?.since ?? at,
    checkedAt: at,
    retryAt: new Date(nowMs + UNAVAILABLE_RETRY_MS).toISOString(),
  };
}

/**
 * Marks the source unavailable on its cursor (versioned; re-read and retried once if another writer
 * won). `fresh`: the cursor had no mark, so this is a new episode (log and announce it).
 */
async function recordUnavailable(
  store: StateStore,
  clubId: string,
  source: SourceName,
  cause: { kind: SourceUnavailable['kind']; status?: number },
  error: string,
  nowMs: number,
): Promise<{ mark: SourceUnavailable; fresh: boolean } | undefined> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const cursor = await store.getCursor(clubId, source);
    const previous = cursor.health.unavailable;
    const mark = unavailableMark(previous, cause, error, nowMs);
    const health = { ...cursor.health, lastPollAt: new Date(nowMs).toISOString(), unavailable: mark };
    try {
      await store.putCursor({ ...cursor, health });
      return { mark, fresh: previous === undefined };
    } catch (err) {
      if (!(err instanceof ConcurrentModificationError)) throw err;
    }
  }
  return undefined;
}

/** Removes the unavailable mark (versioned, retried once); the mark it removed, if any. */
async function clearUnavailableMark(
  store: StateStore,
  clubId: string,
  source: SourceName,
): Promise<SourceUnavailable | undefined> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const cursor = await store.getCursor(clubId, source);
    const { unavailable, ...health } = cursor.health;
    if (!unavailable) return undefined;
    try {
      await store.putCursor({ ...cursor, health });
      return unavailable;
    } catch (err) {
      if (!(err instanceof ConcurrentModificationError)) throw err;
    }
  }
  return undefined;
}

/** Records a failed poll on the source's cursor (re-read and retried once if another writer won). */
async function recordFailure(
  store: StateStore,
  clubId: string,
  source: SourceName,
  kind: FailureKind,
  message: string,
  nowMs: number,
  retryAfterMs?: number,
): Promise<Cursor | undefined> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const cursor = await store.getCursor(clubId, source);
    const failures = (cursor.health.lastError?.kind === kind ? cursor.health.consecutiveFailures : 0) + 1;
    const at = new Date(nowMs).toISOString();
    const health = {
      ...cursor.health,
      lastPollAt: at,
      consecutiveFailures: failures,
      lastError: { kind, message: message.slice(0, 500), at },
      ...(kind === 'auth' || kind === 'quota'
        ? {
            pausedUntil: new Date(
              nowMs + Math.max(pauseMs(kind, failures), Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS)),
            ).toISOString(),
          }
        : {}),
    };
    try {
      return await store.putCursor({ ...cursor, health });
    } catch (err) {
      if (!(err instanceof ConcurrentModificationError)) throw err;
    }
  }
  return undefined;
}

async function markStaleNotified(store: StateStore, cursor: Cursor, nowMs: number): Promise<void> {
  try {
    await store.putCursor({
      ...cursor,
      health: { ...cursor.health, staleNotifiedAt: new Date(nowMs).toISOString() },
    });
  } catch (err) {
    if (!(err instanceof ConcurrentModificationError)) throw err;
  }
}

async function quotaUsed(deps: PollClubDeps, club: ClubConfig, nowMs: number): Promise<number> {
  return deps.store.getQuotaUsage(club.clubId, monthOf(nowMs));
}

function opsEnvelope(club: ClubConfig, identity: string[], nowMs: number) {
  return {
    clubId: club.clubId,
    identity,
    occurredAt: new Date(nowMs),
    observedAt: new Date(nowMs),
    subject: {},
    piiPolicy: club.piiPolicy,
  };
}

function quotaEvent(
  club: ClubConfig,
  reason: 'threshold' | 'rate-limited',
  used: number,
  nowMs: number,
): BridgeEvent {
  const limit = PLAN_QUOTAS[club.plan];
  const month = monthOf(nowMs);
  return createEvent(
    DETAIL_TYPES.ClubQuotaLow,
    opsEnvelope(club, [reason, month, reason === 'threshold' ? '' : new Date(nowMs).toISOString()], nowMs),
    { month, used, limit, share: Math.min(1, used / limit), reason },
  );
}

function operationalEvent(
  club: ClubConfig,
  kind: 'auth' | 'quota',
  err: unknown,
  consecutiveFailures: number,
  pausedUntil: string,
  nowMs: number,
  used: number,
): BridgeEvent {
  if (kind === 'quota') return quotaEvent(club, 'rate-limited', used, nowMs);
  const reason =
    err instanceof AuthError && (err.reason === 'credentials' || err.reason === 'apiKey')
      ? err.reason
      : 'unknown';
  return createEvent(
    DETAIL_TYPES.ClubCredentialsRejected,
    opsEnvelope(club, [reason, new Date(nowMs).toISOString()], nowMs),
    { reason, consecutiveFailures, pausedUntil },
  );
}

function unavailableEvent(
  club: ClubConfig,
  source: SourceName,
  mark: SourceUnavailable,
  experimental: boolean,
  nowMs: number,
): BridgeEvent {
  return createEvent(
    DETAIL_TYPES.ClubSourceUnavailable,
    opsEnvelope(club, ['unavailable', source, mark.since], nowMs),
    {
      unavailableSource: source,
      kind: mark.kind as (typeof SOURCE_UNAVAILABLE_KINDS)[number],
      ...(mark.status === undefined ? {} : { httpStatus: mark.status }),
      error: mark.reason,
      experimental,
      since: mark.since,
      retryAt: mark.retryAt,
    },
  );
}

function staleEvent(
  club: ClubConfig,
  cursor: Cursor,
  nowMs: number,
  staleAfterMs: number,
): BridgeEvent | undefined {
  const { lastSuccessAt, staleNotifiedAt } = cursor.health;
  const since = lastSuccessAt ? Date.parse(lastSuccessAt) : undefined;
  if (since === undefined || nowMs - since < staleAfterMs) return undefined;
  if (staleNotifiedAt && Date.parse(staleNotifiedAt) >= since) return undefined;
  return createEvent(
    DETAIL_TYPES.ClubDataStale,
    opsEnvelope(club, ['stale', cursor.source, lastSuccessAt ?? ''], nowMs),
    {
      staleSource: cursor.source,
      ...(lastSuccessAt ? { lastSuccessAt } : {}),
      ageSeconds: Math.round((nowMs - since) / 1000),
    },
  );
}
