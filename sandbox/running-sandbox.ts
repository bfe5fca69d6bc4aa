/** The controls of a started sandbox over its clubs, its clock, its HTTP server and its fault settings. */
import { writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { parseJsonPreservingInt64 } from '../lambdas/gym-api/json';
import { OPERATIONS, type OperationName } from '../lambdas/gym-api/operations';
import type { ClubRuntime } from './club-runtime';
import type { Faults, ForcedResponse, ForcedResponses } from './faults';
import type { Journal, JournalEntry } from './journal';
import { stringifyWithInt64 } from './json-output';
import { parsePageQuery, selectItems } from './page-query';
import type { PoisonLog } from './poison/poison-log';
import type { QuotaLedger, RequestCounts } from './quota';
import { runClubs } from './sandbox-clubs';
import type {
  ClubsFile,
  LiveOptions,
  PageBytes,
  RecordQuery,
  Sandbox,
  SandboxClub,
  SandboxPoison,
} from './sandbox-types';

export class UnknownClubError extends Error {
  override readonly name = 'UnknownClubError';
}

/** The sandbox clock, shared with the HTTP API (which reads it on every request). */
export interface SandboxClock {
  nowMs: number;
}

export interface RunningSandboxParts {
  readonly url: string;
  readonly integrator: { readonly username: string; readonly password: string };
  readonly runtimes: readonly ClubRuntime[];
  readonly clock: SandboxClock;
  readonly journal: Journal;
  readonly poisonLog: PoisonLog;
  readonly faults: Faults;
  readonly forced: ForcedResponses;
  readonly quota: QuotaLedger;
  readonly server: Server;
  readonly pageBytes: PageBytes;
}

export class RunningSandbox implements Sandbox {
  readonly url: string;
  readonly integrator: { readonly username: string; readonly password: string };
  readonly clubs: readonly SandboxClub[];
  readonly clock: { now(): Date };
  readonly journal: { entries(sinceSeq?: number): JournalEntry[]; readonly lastSeq: number };
  readonly faults: Faults;
  readonly poison: SandboxPoison;
  private readonly clubsById: Map<string, ClubRuntime>;
  private live: NodeJS.Timeout | undefined;

  constructor(private readonly parts: RunningSandboxParts) {
    this.url = parts.url;
    this.integrator = parts.integrator;
    this.faults = parts.faults;
    this.clubs = parts.runtimes.map(({ clubId, apiKey, timeZone, plan }) => ({
      clubId,
      apiKey,
      timeZone,
      plan,
    }));
    this.clubsById = new Map(parts.runtimes.map((c) => [c.clubId, c]));
    this.clock = { now: () => new Date(parts.clock.nowMs) };
    const journal = parts.journal;
    this.journal = {
      entries: (sinceSeq?: number) => journal.entries(sinceSeq),
      get lastSeq() {
        return journal.lastSeq;
      },
    };
    const poisonLog = parts.poisonLog;
    this.poison = {
      log: {
        entries: (sinceSeq?: number) => poisonLog.entries(sinceSeq),
        get lastSeq() {
          return poisonLog.lastSeq;
        },
      },
      find: (text: string) => poisonLog.find(text),
      findIn: (value: unknown) => poisonLog.findIn(value),
    };
  }

  advance = (ms: number): void => {
    if (!(ms >= 0) || !Number.isFinite(ms))
      throw new RangeError(`advance(ms) needs a finite ms >= 0, got ${ms}`);
    const clock = this.parts.clock;
    const target = clock.nowMs + Math.floor(ms);
    runClubs(this.parts.runtimes, clock.nowMs, target);
    clock.nowMs = target;
  };

  startLive = (liveOptions: LiveOptions = {}): void => {
    this.stopLive();
    const speed = liveOptions.speed ?? 1;
    const tickMs = liveOptions.tickMs ?? 250;
    if (!(speed > 0)) throw new RangeError(`speed must be > 0, got ${speed}`);
    let last = Date.now();
    let carry = 0;
    this.live = setInterval(() => {
      const wall = Date.now();
      carry += (wall - last) * speed;
      last = wall;
      const step = Math.floor(carry);
      carry -= step;
      if (step > 0) this.advance(step);
    }, tickMs);
    this.live.unref();
  };

  stopLive = (): void => {
    if (this.live) clearInterval(this.live);
    this.live = undefined;
  };

  failNext = (count: number, status: number, more: Omit<ForcedResponse, 'status'> = {}): void => {
    this.parts.forced.add(count, { ...more, status });
  };

  clearFailures = (): void => {
    this.parts.forced.clear();
  };

  requestCounts = (clubId: string): RequestCounts => {
    const club = this.clubOf(clubId);
    return this.parts.quota.counts(club.clubId, club.plan, this.parts.clock.nowMs);
  };

  get pageBytes(): PageBytes {
    return { ...this.parts.pageBytes };
  }

  clubsFile = (): ClubsFile => ({
    clubs: this.parts.runtimes.map((c) => ({
      clubId: c.clubId,
      baseUrl: this.url,
      timeZone: c.timeZone,
      plan: c.plan,
      credentials: {
        username: this.integrator.username,
        password: this.integrator.password,
        apiKey: c.apiKey,
      },
    })),
  });

  writeClubsFile = async (path: string): Promise<void> => {
    await writeFile(path, `${JSON.stringify(this.clubsFile(), null, 2)}\n`, { mode: 0o600 });
  };

  records = (
    clubId: string,
    operation: OperationName,
    query: RecordQuery = {},
  ): Record<string, unknown>[] => {
    const club = this.clubOf(clubId);
    const params = new URLSearchParams(query as Record<string, string>);
    const q = parsePageQuery(OPERATIONS[operation], params);
    const all = query.limit === undefined ? { ...q, limit: Number.MAX_SAFE_INTEGER } : q;
    const items = selectItems(club.store, operation, all);
    return parseJsonPreservingInt64(stringifyWithInt64(items)) as Record<string, unknown>[];
  };

  close = async (): Promise<void> => {
    this.stopLive();
    const server = this.parts.server;
    await new Promise<void>((resolve, reject) => {
      server.close((err) => (err ? reject(err) : resolve()));
      server.closeAllConnections();
    });
  };

  private clubOf(clubId: string): ClubRuntime {
    const club = this.clubsById.get(clubId);
    if (!club) throw new UnknownClubError(`no club '${clubId}' in this sandbox`);
    return club;
  }
}
