/** What startSandbox hands back: the sandbox's controls, and the shapes they take and give. */
import type { OperationName } from '../lambdas/gym-api/operations';
import type { PlanName } from './club-profile';
import type { Faults, ForcedResponse } from './faults';
import type { JournalEntry } from './journal';
import type { PoisonLogEntry } from './poison/poison-log';
import type { RequestCounts } from './quota';

export interface SandboxClub {
  readonly clubId: string;
  readonly apiKey: string;
  readonly timeZone: string;
  readonly plan: PlanName;
}

/** The clubs file (docs/cli.md, "Clubs file"), read by `poll --clubs FILE`. */
export interface ClubsFile {
  clubs: {
    clubId: string;
    baseUrl: string;
    timeZone: string;
    plan: PlanName;
    credentials: { username: string; password: string; apiKey: string };
  }[];
}

export interface LiveOptions {
  /** Simulated ms per wall ms. @default 1 */
  readonly speed?: number;
  /** Wall ms between clock moves. @default 250 */
  readonly tickMs?: number;
}

/** Query of the in-process data access (`records`), as the HTTP query string would carry it. */
export type RecordQuery = Partial<Record<'fromdate' | 'updatedate' | 'status' | 'offset' | 'limit', string>>;

/** Poison mode's record of what it did (docs/sandbox.md, "Poison mode"). */
export interface SandboxPoison {
  /** Every stored bad record and bent response, in order; `entries(n)` gives those with seq > n. */
  readonly log: { entries(sinceSeq?: number): PoisonLogEntry[]; readonly lastSeq: number };
  /**
   * The log entries whose markers (`~poison-<n>`, `~poison-r<n>`) or poison int64 ids
   * (9200..., 9210..., 9220...) occur in `text`.
   */
  find(text: string): PoisonLogEntry[];
  /** The same for a parsed value (an event's detail), walked without recursion: safe at any depth. */
  findIn(value: unknown): PoisonLogEntry[];
}

export interface Sandbox {
  /** Base URL, ending in /v1. */
  readonly url: string;
  readonly integrator: { readonly username: string; readonly password: string };
  readonly clubs: readonly SandboxClub[];
  readonly clock: { now(): Date };
  /** Moves the clock forward by `ms`, generating (synchronously) all activity of that span. */
  advance(ms: number): void;
  /** Moves the clock with wall time times `speed` until stopLive() or close(). */
  startLive(options?: LiveOptions): void;
  stopLive(): void;
  readonly journal: { entries(sinceSeq?: number): JournalEntry[]; readonly lastSeq: number };
  /** Live fault settings: change a field and the next request sees it. */
  readonly faults: Faults;
  /** Poison mode's log: what is not a real change, and where a checker finds its markers. */
  readonly poison: SandboxPoison;
  /** The next `count` requests (matching `options.pathPrefix`, e.g. "/members") get `status`. */
  failNext(count: number, status: number, options?: Omit<ForcedResponse, 'status'>): void;
  /** Drops every response still forced by failNext (including those forced for ever). */
  clearFailures(): void;
  requestCounts(clubId: string): RequestCounts;
  /** Bytes of the data pages served since the start: as written (JSON) and as sent (gzipped or not). */
  readonly pageBytes: PageBytes;
  clubsFile(): ClubsFile;
  writeClubsFile(path: string): Promise<void>;
  /**
   * In-process read of what the API would serve (no auth, no quota, no faults), as the client
   * would see it after parsing: int64 ids come back as decimal strings. Without offset/limit it
   * returns every matching record.
   */
  records(clubId: string, operation: OperationName, query?: RecordQuery): Record<string, unknown>[];
  close(): Promise<void>;
}

export interface PageBytes {
  readonly pages: number;
  readonly json: number;
  readonly sent: number;
}

export class UnknownClubError extends Error {
  override readonly name = 'UnknownClubError';
}
