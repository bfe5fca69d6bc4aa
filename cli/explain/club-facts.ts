/**
 * What the state table holds of a club's operational events (docs/cli.md, explain; docs/events.md:
 * Club Data Stale, Club Source Unavailable, Club Credentials Rejected, Club Quota Low), the answer to
 * "why didn't I get Club Data Stale?": per source, the episode each condition is in, and for the
 * club, a pause by a 401 or a 429 and the month's quota alert; each with what became of its event.
 *
 * The engine announces each episode once, writing its event as owed on a cursor in the same write
 * as the state it announces, and removes it from there once delivered (engine/club-poll/announcer.ts).
 * So the state shows an episode announced and its event delivered (`published`: its eventId, built
 * with the engine's own builders from the episode the state keeps), announced and owed (`pending`:
 * no eventId, the next poll publishes it), or not announced (`none`: not due yet, or due at the
 * next poll). It never gives an eventId the state does not show was published. `explain` without a
 * subject flag prints it (./club-words.ts) or its JSON.
 */
import type { ClubConfig } from '../../lambdas/clubs/club-config';
import { PLAN_QUOTAS } from '../../lambdas/common/plans';
import { redactKnownSecrets } from '../../lambdas/common/redact';
import { monthOf } from '../../lambdas/common/time-units';
import { activePause, type ClubPause, isPauseKind } from '../../lambdas/engine/club-poll/failure-policy';
import { fingerprint } from '../../lambdas/engine/club-poll/poll-source';
import { DEFAULT_QUOTA_ALERT_SHARE } from '../../lambdas/engine/club-poll/quota-check';
import { describeFastLane, type FastLane } from '../../lambdas/engine/schedule/fast-lane';
import { clubFastLane } from '../../lambdas/engine/schedule/scheduling';
import { DETAIL_TYPES } from '../../lambdas/events/catalog';
import { AuthError } from '../../lambdas/gym-api/errors';
import { enabledSources, isExperimentalSource } from '../../lambdas/sources';
import {
  DEFAULT_STALE_AFTER_MS,
  type PauseKind,
  pauseEvent,
  quotaEvent,
  staleEvent,
  unavailableEvent,
} from '../../lambdas/sources/operational-events';
import type { StateStore } from '../../lambdas/state/state-store';
import type { Cursor, OwedEvent, SourceName, SourceUnavailable } from '../../lambdas/state/store';

/**
 * What became of a condition's event: `published` (announced and delivered: removed from the cursor
 * that owed it), `pending` (announced, owed on a cursor: the next poll publishes it under the id it
 * was given) or `none` (not announced).
 */
export type OpsAnnouncement = 'published' | 'pending' | 'none';

export interface Notice {
  readonly detailType: string;
  readonly announcement: OpsAnnouncement;
  /** Only for one published, and only when the state keeps what it derives from. */
  readonly eventId: string | null;
}

/** Where the source is in its stale episode. */
export interface StaleFacts {
  /**
   * never-succeeded: no success to count from (no episode); not-due: its last success is under the
   * threshold old; waiting: past it, and no poll of the source has failed since (a poll that fails
   * announces it); due: a poll failed past it and the notice is not written (the next poll writes
   * it first thing); announced: this episode's notice is written (`notifiedAt`).
   */
  readonly episode: 'never-succeeded' | 'not-due' | 'waiting' | 'due' | 'announced';
  readonly lastSuccessAt: string | null;
  /** When it becomes (or became) due: the last success plus the threshold. */
  readonly dueAt: string | null;
  readonly notifiedAt: string | null;
  readonly notice: Notice;
}

export interface SourceOpsFacts {
  readonly source: SourceName;
  readonly enabled: boolean;
  readonly experimental: boolean;
  readonly polled: boolean;
  readonly consecutiveFailures: number;
  readonly lastError: { readonly kind: string; readonly message: string; readonly at: string } | null;
  readonly stale: StaleFacts;
  /** The endpoint's unavailable episode (since when, why, next try), or null when it answers. */
  readonly unavailable: (SourceUnavailable & { readonly notice: Notice }) | null;
  /** Operational events the cursor owes (pending), whichever condition they announce. */
  readonly owed: { readonly detailType: string; readonly occurredAt: string | null }[];
}

/** A run of 401s (auth) or 429s (quota) since the club's last success: one episode, announced once. */
export interface RefusalEpisode {
  readonly kind: PauseKind;
  /** The refusal that began it (UTC), when the state keeps it. */
  readonly startedAt: string | null;
  /** Each source refused in the run: its latest refusal, how many in a row, its pause. */
  readonly sources: {
    readonly source: SourceName;
    readonly at: string;
    readonly consecutiveFailures: number;
    readonly pausedUntil: string | null;
  }[];
  /** The latest end of a pause of the run (UTC); in the past: the next poll tries again. */
  readonly pausedUntil: string | null;
  readonly reason: string;
  readonly notice: Notice;
}

export interface QuotaFacts {
  readonly month: string;
  readonly used: number;
  readonly limit: number;
  readonly share: number;
  readonly alertShare: number;
  /** The month's count at which Club Quota Low is announced. */
  readonly alertAt: number;
  readonly notice: Notice;
}

export interface ClubOpsFacts {
  readonly clubId: string;
  readonly observedAt: string;
  readonly staleAfterMs: number;
  readonly sources: SourceOpsFacts[];
  readonly pause: ClubPause | null;
  readonly refusals: RefusalEpisode[];
  readonly quota: QuotaFacts;
  /** The visits fast lane as the dispatcher decides it now (engine/schedule/fast-lane.ts). */
  readonly fastLane: FastLane & { readonly summary: string };
}

const iso = (ms: number) => new Date(ms).toISOString();
const T = DETAIL_TYPES;

/** An eventId built by the engine's builder; null when the stored episode does not make a valid event. */
function idOf(build: () => { detail: { eventId: string } } | undefined): string | null {
  try {
    return build()?.detail.eventId ?? null;
  } catch {
    return null;
  }
}

/** The notice of an announced episode: pending while its event is owed, else published (with its id). */
function announced(detailType: string, eventId: string | null, owed: ReadonlySet<string>): Notice {
  if (eventId !== null && owed.has(eventId)) return { detailType, announcement: 'pending', eventId: null };
  return { detailType, announcement: 'published', eventId };
}

const none = (detailType: string): Notice => ({ detailType, announcement: 'none', eventId: null });

function staleFacts(club: ClubConfig, cursor: Cursor | undefined, ctx: Ctx): StaleFacts {
  const h = cursor?.health;
  const lastSuccessAt = h?.lastSuccessAt ?? null;
  const sinceMs = lastSuccessAt ? Date.parse(lastSuccessAt) : Number.NaN;
  if (!cursor || !h || !lastSuccessAt || Number.isNaN(sinceMs))
    return {
      episode: 'never-succeeded',
      lastSuccessAt,
      dueAt: null,
      notifiedAt: null,
      notice: none(T.ClubDataStale),
    };
  const dueAt = iso(sinceMs + ctx.staleAfterMs);
  const base = { lastSuccessAt, dueAt };
  // A notice at the instant of the success is the previous episode's (operational-events.ts).
  if (h.staleNotifiedAt && Date.parse(h.staleNotifiedAt) > sinceMs) {
    const { staleNotifiedAt: _n, ...health } = h;
    const nowMs = Math.max(ctx.nowMs, sinceMs);
    const id = idOf(() => staleEvent(club, { ...cursor, health }, nowMs, 0, Number.POSITIVE_INFINITY));
    return {
      episode: 'announced',
      ...base,
      notifiedAt: h.staleNotifiedAt,
      notice: announced(T.ClubDataStale, id, ctx.owed),
    };
  }
  const notice = none(T.ClubDataStale);
  if (ctx.nowMs - sinceMs < ctx.staleAfterMs)
    return { episode: 'not-due', ...base, notifiedAt: null, notice };
  const error = h.lastError;
  const failedPast =
    error !== undefined && !isPauseKind(error.kind) && Date.parse(error.at) - sinceMs >= ctx.staleAfterMs;
  return { episode: failedPast ? 'due' : 'waiting', ...base, notifiedAt: null, notice };
}

function unavailableFacts(club: ClubConfig, cursor: Cursor, ctx: Ctx): SourceOpsFacts['unavailable'] {
  const mark = cursor.health.unavailable;
  if (!mark) return null;
  const experimental = isExperimentalSource(cursor.source);
  const id = idOf(() => unavailableEvent(club, cursor.source, mark, experimental, ctx.nowMs));
  return {
    ...mark,
    reason: redactKnownSecrets(mark.reason),
    notice: announced(T.ClubSourceUnavailable, id, ctx.owed),
  };
}

function sourceFacts(
  club: ClubConfig,
  name: SourceName,
  cursor: Cursor | undefined,
  ctx: Ctx,
): SourceOpsFacts {
  const h = cursor?.health;
  const error = h?.lastError;
  return {
    source: name,
    enabled: enabledSources(club).includes(name),
    experimental: isExperimentalSource(name),
    polled: cursor !== undefined && cursor.version > 0,
    consecutiveFailures: h?.consecutiveFailures ?? 0,
    lastError: error ? { ...error, message: redactKnownSecrets(error.message) } : null,
    stale: staleFacts(club, cursor, ctx),
    unavailable: cursor ? unavailableFacts(club, cursor, ctx) : null,
    owed: (h?.owedEvents ?? []).map((e) => ({
      detailType: e.detailType,
      occurredAt: typeof e.detail.occurredAt === 'string' ? e.detail.occurredAt : null,
    })),
  };
}

/** The reason a 401's message names (status-errors.ts, data-requests.ts), as the event carries it. */
function authReason(message: string): 'credentials' | 'apiKey' | 'unknown' | undefined {
  const said = /: HTTP 40[13] \((credentials|apiKey|token|unknown) rejected/.exec(message)?.[1];
  if (said === undefined) return undefined;
  return said === 'credentials' || said === 'apiKey' ? said : 'unknown';
}

/** The eventId of the episode begun by `starter`'s refusal, when its message says what it derives from. */
function refusalId(club: ClubConfig, kind: PauseKind, starter: Cursor): string | null {
  const error = starter.health.lastError!;
  const atMs = Date.parse(error.at);
  if (kind === 'quota') return idOf(() => quotaEvent(club, 'rate-limited', 0, atMs));
  const reason = authReason(error.message);
  if (reason === undefined) return null;
  const err = new AuthError(error.message, { operation: 'explain', reason });
  return idOf(() => pauseEvent(club, 'auth', err, 1, error.at, atMs, 0));
}

/**
 * The club's run of refusals of `kind` since its last success (startsPauseEpisode's episode), or
 * undefined. Its start is known when every refused cursor holds its first refusal of the run (one in
 * a row): the earliest began it. Its event is pending while a cursor owes one of this episode.
 */
function refusalEpisode(
  club: ClubConfig,
  kind: PauseKind,
  cursors: readonly Cursor[],
  ctx: Ctx,
): RefusalEpisode | undefined {
  const lastSuccessMs = Math.max(
    Number.NEGATIVE_INFINITY,
    ...cursors.map((c) =>
      c.health.lastSuccessAt ? Date.parse(c.health.lastSuccessAt) : Number.NEGATIVE_INFINITY,
    ),
  );
  const runs = cursors
    .filter((c) => {
      const e = c.health.lastError;
      return e?.kind === kind && c.health.consecutiveFailures > 0 && Date.parse(e.at) >= lastSuccessMs;
    })
    .sort((a, b) => Date.parse(a.health.lastError!.at) - Date.parse(b.health.lastError!.at));
  const [starter] = runs;
  if (!starter) return undefined;
  const detailType = kind === 'auth' ? T.ClubCredentialsRejected : T.ClubQuotaLow;
  const owed = ctx.owedEvents.find(
    (e) =>
      e.detailType === detailType &&
      (kind === 'auth' || e.detail.reason === 'rate-limited') &&
      Date.parse(String(e.detail.occurredAt)) >= lastSuccessMs,
  );
  const known = runs.every((c) => c.health.consecutiveFailures === 1);
  const startedAt = owed ? String(owed.detail.occurredAt) : known ? starter.health.lastError!.at : null;
  const notice: Notice = owed
    ? { detailType, announcement: 'pending', eventId: null }
    : announced(detailType, known ? refusalId(club, kind, starter) : null, ctx.owed);
  const pauses = runs.map((c) => c.health.pausedUntil).filter((p): p is string => p !== undefined);
  return {
    kind,
    startedAt,
    sources: runs.map((c) => ({
      source: c.source,
      at: c.health.lastError!.at,
      consecutiveFailures: c.health.consecutiveFailures,
      pausedUntil: c.health.pausedUntil ?? null,
    })),
    pausedUntil: pauses.length > 0 ? pauses.reduce((a, b) => (Date.parse(a) >= Date.parse(b) ? a : b)) : null,
    reason: redactKnownSecrets(runs.at(-1)!.health.lastError!.message),
    notice,
  };
}

/** The month's quota alert: marked once delivered (quota-check.ts), owed until then. */
async function quotaFacts(store: StateStore, club: ClubConfig, used: number, ctx: Ctx): Promise<QuotaFacts> {
  const month = monthOf(ctx.nowMs);
  const limit = PLAN_QUOTAS[club.plan];
  const alertShare = DEFAULT_QUOTA_ALERT_SHARE;
  const figures = {
    month,
    used,
    limit,
    share: used / limit,
    alertShare,
    alertAt: Math.ceil(limit * alertShare),
  };
  const mark = fingerprint(`OPS|quota-threshold|${month}`);
  const seen = await store.view(club.clubId).filterSeen('members', [mark], Math.floor(ctx.nowMs / 1000));
  const owed = ctx.owedEvents.some(
    (e) => e.detailType === T.ClubQuotaLow && e.detail.reason === 'threshold' && e.detail.month === month,
  );
  const detailType = T.ClubQuotaLow;
  if (owed) return { ...figures, notice: { detailType, announcement: 'pending', eventId: null } };
  if (!seen.has(mark)) return { ...figures, notice: none(detailType) };
  const id = idOf(() => quotaEvent(club, 'threshold', used, ctx.nowMs));
  return { ...figures, notice: { detailType, announcement: 'published', eventId: id } };
}

interface Ctx {
  readonly nowMs: number;
  readonly staleAfterMs: number;
  readonly owedEvents: readonly OwedEvent[];
  readonly owed: ReadonlySet<string>;
}

/** Everything the state table holds of the club's operational events, as of `nowMs`. */
export async function clubOpsFacts(
  store: StateStore,
  club: ClubConfig,
  nowMs: number,
): Promise<ClubOpsFacts> {
  const states = await store.readClubStates([club.clubId], monthOf(nowMs));
  const state = states.get(club.clubId);
  const cursors = state?.cursors ?? [];
  const owedEvents = cursors.flatMap((c) => c.health.owedEvents ?? []);
  const ctx: Ctx = {
    nowMs,
    staleAfterMs: DEFAULT_STALE_AFTER_MS,
    owedEvents,
    owed: new Set(owedEvents.map((e) => e.detail.eventId)),
  };
  const names = [
    ...enabledSources(club),
    ...cursors.map((c) => c.source).filter((s) => !enabledSources(club).includes(s)),
  ];
  const lane = clubFastLane(club, cursors, state?.quotaUsed ?? 0, nowMs);
  const refusals = (['auth', 'quota'] as const)
    .map((kind) => refusalEpisode(club, kind, cursors, ctx))
    .filter((r): r is RefusalEpisode => r !== undefined);
  return {
    clubId: club.clubId,
    observedAt: iso(nowMs),
    staleAfterMs: ctx.staleAfterMs,
    sources: names.map((name) =>
      sourceFacts(
        club,
        name,
        cursors.find((c) => c.source === name),
        ctx,
      ),
    ),
    pause: activePause(cursors, nowMs) ?? null,
    refusals,
    quota: await quotaFacts(store, club, state?.quotaUsed ?? 0, ctx),
    fastLane: { ...lane, summary: describeFastLane(lane) },
  };
}
