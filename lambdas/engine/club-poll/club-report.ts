/**
 * What a club poll reports (ClubReport, read by the handler, the CLI and the bench), what it takes
 * (PollClubDeps, PollClubOptions), and the builders of the per-source reports it adds itself
 * (skipped, unavailable).
 */

import type { BridgeEvent } from '../../events/catalog';
import type { EventSink } from '../../events/event-sink';
import type { Page } from '../../gym-api';
import type { OperationName } from '../../gym-api/operations';
import type { LifecycleReport } from '../../lifecycle/club-lifecycle';
import type { ClubSession, StateStore } from '../../state/state-store';
import type { SourceName, SourceUnavailable } from '../../state/store';
import type { ClientFactory } from './client-factory';
import type { ClubPause, FailureKind } from './failure-policy';
import type { SourceReport } from './poll-source';

export interface PollClubDeps {
  readonly store: StateStore;
  readonly sink: EventSink;
  readonly clients: ClientFactory;
  /** Domain clock (UTC ms). @default Date.now */
  readonly now?: () => number;
  /** Lease owner id of this poller. */
  readonly owner: string;
}

/** What a club's sources are polled with once its session is open: the session instead of the store. */
export type ClubRunDeps = Omit<PollClubDeps, 'store'> & { readonly store: ClubSession };

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
  /**
   * When the poll's message was dispatched: the sources whose last successful poll came after it
   * are left out (stale-sources.ts), judged on the cursors the lease write returns. @default none left out
   */
  readonly dispatchedAt?: string;
  /**
   * 'fast': the session a fast-lane probe opened (fast-lane-probe.ts): no lifecycle evaluation, and
   * the probe's request was paid by the minute's poll. @default the minute's poll
   */
  readonly lane?: 'fast';
  /**
   * The fast-lane session's page: the rows past the visits tail's count its probe read. Only these
   * are detected and published (scan/lane-page.ts); without it the session polls visits whole.
   */
  readonly lanePage?: Page<OperationName>;
  /** The fast-lane probes this poll pays for: counted with its requests, marked paid until `untilMs`. */
  readonly probes?: { readonly count: number; readonly untilMs: number };
  /** The API refused a fast-lane probe (400): probing is turned off for the club's visits. */
  readonly probeRefused?: boolean;
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
  /**
   * Operational events (credentials, quota, staleness, unavailable sources) delivered during this
   * poll: its own, and those earlier polls announced and could not deliver.
   */
  readonly operationalEvents: BridgeEvent[];
  /** The lifecycle evaluation of this poll (absent: off, or already done this hour). */
  readonly lifecycle?: LifecycleReport;
  /** Every source asked for was polled since the message was dispatched: nothing was polled. */
  readonly stale?: true;
}

/** A report of a poll that made no request (disabled, paused, stale, or the lease held elsewhere). */
export function idleReport(
  clubId: string,
  outcome: ClubReport['outcome'],
  extra: Partial<Pick<ClubReport, 'sources' | 'pausedUntil' | 'pause' | 'stale' | 'operationalEvents'>> = {},
): ClubReport {
  return {
    clubId,
    sources: [],
    failures: [],
    outcome,
    requests: 0,
    tokenRequests: 0,
    operationalEvents: [],
    ...extra,
  };
}

export function skippedReport(source: SourceName, reason: string): SourceReport {
  return {
    source,
    outcome: 'skipped',
    reason,
    pages: 0,
    records: 0,
    events: 0,
    quarantined: 0,
    attempts: 0,
  };
}

export function unavailableReport(
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
  };
}
