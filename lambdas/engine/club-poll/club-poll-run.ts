/**
 * One club poll under the club lease: the club's sources in turn, what each one's outcome means
 * for the others (a 401 or 429 stops the rest and pauses the club), and the operational events
 * it announces on the way (delivered at least once: announcer.ts). pollClub (../poll-club.ts) takes
 * the lease, runs this, and reports.
 */

import type { ClubConfig } from '../../clubs/club-config';
import { mapWithConcurrency } from '../../common/concurrency';
import type { BridgeEvent } from '../../events/catalog';
import type { GymApiClient } from '../../gym-api';
import { SOURCES } from '../../sources';
import { type Cursor, newCursor, type SourceName } from '../../state/store';
import type { SweepIntervals } from '../schedule/cost-estimate';
import type { Announcer } from './announcer';
import { clubContext } from './club-context';
import {
  type ClubRunDeps,
  type ClubSourceReport,
  type PollClubOptions,
  type SourceFailure,
  skippedReport,
  unavailableReport,
} from './club-report';
import { activePause, type ClubPause, isPauseKind, unavailability } from './failure-policy';
import { pollSource } from './poll-source';
import {
  type ClubPollScope,
  clearUnavailable,
  markUnavailable,
  recordSourceFailure,
  reportStale,
} from './source-outcomes';

/** Sources of one club polled at the same time, after the first. */
export const SOURCE_CONCURRENCY = 8;
/** A source is not started this close to the deadline. */
const DEADLINE_MARGIN_MS = 3000;

export class ClubPollRun implements ClubPollScope {
  readonly reports = new Map<SourceName, ClubSourceReport>();
  readonly failures: SourceFailure[] = [];
  readonly now: () => number;
  requests = 0;
  tokenRequests = 0;
  readonly #client: GymApiClient;
  /** Cursors this poll paused (a 401 or a 429). */
  readonly #paused: Cursor[] = [];
  #stopped = false;
  /** Failed sources are handled one at a time: a pause's episode is judged on the cursors as written. */
  #failureHandling: Promise<void> = Promise.resolve();

  constructor(
    readonly deps: ClubRunDeps,
    readonly club: ClubConfig,
    readonly options: PollClubOptions,
    readonly startMs: number,
    /** Delivers the poll's operational events (and delivered what earlier polls owed). */
    readonly announcer: Announcer,
    /** Sweep periods the unused quota pays for (schedule/sweep-budget.ts). */
    readonly sweeps: SweepIntervals = {},
  ) {
    this.now = deps.now ?? Date.now;
    this.#client = deps.clients.forClub(club, (e) => {
      if (e.kind === 'data') this.requests++;
      else this.tokenRequests++;
    });
  }

  /** The club's API client (its requests counted in `requests`): the lifecycle's visit history reads with it. */
  get client(): GymApiClient {
    return this.#client;
  }

  /** Operational events this poll delivered (those earlier polls owed included). */
  get operationalEvents(): BridgeEvent[] {
    return this.announcer.delivered;
  }

  /** The pause this poll started (the one that ends last), if any. */
  pause(): ClubPause | undefined {
    return activePause(this.#paused, this.now());
  }

  /**
   * Polls the sources in `order`: those marked unavailable wait for their retryAt without a
   * request; the first source alone (a rejected key or a spent quota then costs one request, not
   * one per source), then the others side by side: a poll takes about as long as its slowest source.
   */
  async pollSources(order: readonly SourceName[], current: ReadonlyMap<SourceName, Cursor>): Promise<void> {
    const toPoll = order.filter((name) => {
      const mark = current.get(name)?.health.unavailable;
      if (!mark || Date.parse(mark.retryAt) <= this.startMs || this.options.retryUnavailable) return true;
      this.reports.set(name, unavailableReport(name, mark, false));
      return false;
    });
    const pollOne = (name: SourceName) => this.#pollOne(name, current);
    const [first, ...rest] = toPoll;
    if (first) await pollOne(first);
    await mapWithConcurrency(rest, SOURCE_CONCURRENCY, pollOne);
  }

  async #pollOne(name: SourceName, current: ReadonlyMap<SourceName, Cursor>): Promise<void> {
    if (this.#stopped) {
      this.reports.set(name, skippedReport(name, 'the club was paused during this poll'));
      return;
    }
    if (Date.now() > this.options.deadlineMs - DEADLINE_MARGIN_MS) {
      // Out of time: said, not silent. pollOrder puts these first next time.
      this.reports.set(name, skippedReport(name, 'deadline reached before this source'));
      return;
    }
    try {
      const report = await this.#pollSource(name, current.get(name));
      this.reports.set(name, report);
      if (report.outcome !== 'skipped' && current.get(name)?.health.unavailable)
        await clearUnavailable(this, name);
      // A source that keeps finishing incomplete (rows moving under its scans) is not succeeding.
      if (report.outcome === 'incomplete') {
        await reportStale(this, await this.deps.store.getCursor(name));
      }
    } catch (err) {
      const handled = this.#failureHandling.then(() => this.#onSourceError(name, err));
      this.#failureHandling = handled.catch(() => undefined);
      await handled;
    }
  }

  #pollSource(name: SourceName, cursor: Cursor | undefined) {
    const { deps, club, options } = this;
    const ctx = clubContext(club);
    const sourceDeps = {
      store: deps.store,
      sink: deps.sink,
      client: this.#client,
      now: this.now,
      owner: deps.owner,
    };
    // Each source's poll runs under the club lease, with the cursor read under it (no second read).
    return pollSource(sourceDeps, ctx, SOURCES[name], {
      deadlineMs: options.deadlineMs,
      cursor: cursor ?? newCursor(club.clubId, name),
      ...(this.sweeps[name] === undefined ? {} : { sweepEveryMs: this.sweeps[name] }),
      ...(options.backfillFromMs === undefined ? {} : { backfillFromMs: options.backfillFromMs }),
      ...(options.pageSize ? { pageSize: options.pageSize } : {}),
      ...(options.lanePage && name === 'visits' ? { lanePage: options.lanePage } : {}),
    });
  }

  async #onSourceError(name: SourceName, err: unknown): Promise<void> {
    const cause = unavailability(err, SOURCES[name]);
    if (cause) {
      await markUnavailable(this, name, err, cause);
      return;
    }
    const { kind, cursor, owed } = await recordSourceFailure(this, name, err);
    if (isPauseKind(kind)) {
      // The other sources would be refused the same way: those not started yet are not polled.
      this.#stopped = true;
      if (cursor?.health.pausedUntil) this.#paused.push(cursor);
    }
    // A pause's episode or a stale one (once each), written as owed with the failure.
    if (owed) await this.announcer.deliver(name, owed);
  }
}
