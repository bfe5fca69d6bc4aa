/** The public shapes of a source poll: its dependencies, options and report. */

import type { EventSink } from '../../events/event-sink';
import type { GymApiClient, Page } from '../../gym-api';
import type { OperationName } from '../../gym-api/operations';
import type { ClubSession } from '../../state/state-store';
import type { Cursor } from '../../state/store';
import type { ScanMode, SourceOutcome } from './scan-types';

export interface PollSourceDeps {
  readonly store: ClubSession;
  readonly sink: EventSink;
  readonly client: GymApiClient;
  /** Domain clock (UTC ms): what "now" means for watermarks and records. */
  readonly now: () => number;
  /** Poller id, unique per process/invocation (the club lease's owner). */
  readonly owner: string;
}

export interface PollSourceOptions {
  /** Real-time epoch ms by which the poll must have returned. */
  readonly deadlineMs: number;
  /**
   * Asks for an explicit backfill from this instant (UTC ms, not after the poll's start): every
   * record since then is published again. Recorded in the cursor at once and carried on by later
   * polls until it completes; asking again for the same start resumes it, another start restarts it.
   */
  readonly backfillFromMs?: number;
  readonly pageSize?: number;
  /** @default 3 */
  readonly maxScanAttempts?: number;
  /** Time kept in reserve before the deadline to save progress. @default 3000 */
  readonly reserveMs?: number;
  /** The stored cursor, read (strongly consistent) by the caller after it took its lease. */
  readonly cursor?: Cursor;
  /**
   * Sweep at least this often (ms), when shorter than the source's own period: what the quota the
   * plan leaves unused pays for (engine/schedule/sweep-budget.ts).
   */
  readonly sweepEveryMs?: number;
  /**
   * A fast-lane session's page (the rows past the last whole tail's count, as its probe read them):
   * only these are detected and published, and the cursor is left as it is (scan/lane-page.ts).
   */
  readonly lanePage?: Page<OperationName>;
}

/** The backfill lane of a poll: what it did this time. */
export interface BackfillReport {
  /** The backfill's start (UTC ISO with Z). */
  readonly from: string;
  /**
   * completed: every record since `from` is published and the backfill is done; partial: out of
   * time, it resumes next poll; incomplete: rows moved while paging, it starts again next poll;
   * skipped: the regular poll used this invocation's time (or has no baseline yet).
   */
  readonly outcome: SourceOutcome;
  readonly pages: number;
  readonly records: number;
  readonly events: number;
}

export interface SourceReport {
  readonly source: string;
  /**
   * The regular poll's outcome; `partial` too when it completed but a backfill is still pending
   * (more polls needed). Counts (pages, records, events, ...) cover both lanes.
   */
  readonly outcome: SourceOutcome;
  /**
   * The regular poll's scan; `probe` when a tail probe found no row added and nothing was read
   * (scan/tail-probe.ts); `lane` for a fast-lane session's page (scan/lane-page.ts).
   */
  readonly mode?: ScanMode | 'probe' | 'lane';
  readonly reason?: string;
  readonly pages: number;
  readonly records: number;
  readonly events: number;
  readonly quarantined: number;
  readonly attempts: number;
  readonly watermark?: string;
  /** Present when a backfill was pending at the start of this poll. */
  readonly backfill?: BackfillReport;
}
