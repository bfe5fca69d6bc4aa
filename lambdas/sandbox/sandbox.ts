/**
 * startSandbox: builds the clubs and their history, serves the API on a real socket, and hands back
 * the controls (clock, live mode, faults, journal, quotas, clubs file).
 */
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseJsonPreservingInt64 } from '../gym-api/json';
import { OPERATIONS, type OperationName } from '../gym-api/operations';
import { AccessTokenIssuer } from './access-tokens';
import { ClubSimulation } from './activity';
import type { ClubRuntime } from './club-runtime';
import { ClubStore, type PlanName } from './club-store';
import { DEFAULT_FAULTS, type Faults, type ForcedResponse, ForcedResponses, validateFaults } from './faults';
import { BASE_PATH, HttpApi } from './http-api';
import { Journal, type JournalEntry } from './journal';
import { stringifyWithInt64 } from './json-output';
import { resolveOptions, type SandboxOptions } from './options';
import { parsePageQuery, selectItems } from './page-query';
import { QuotaLedger, type RequestCounts } from './quota';
import { SeededRandom } from './seeded-random';
import { localeForZone } from './vocabulary';
import { MS_DAY } from './zoned-time';

export interface SandboxClub {
  readonly clubId: string;
  readonly apiKey: string;
  readonly timeZone: string;
  readonly plan: PlanName;
}

/** The clubs file (README, "Clubs file"), read by `poll --clubs FILE`. */
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
  /** The next `count` requests (matching `options.pathPrefix`, e.g. "/members") get `status`. */
  failNext(count: number, status: number, options?: Omit<ForcedResponse, 'status'>): void;
  /** Drops every response still forced by failNext (including those forced for ever). */
  clearFailures(): void;
  requestCounts(clubId: string): RequestCounts;
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

export class UnknownClubError extends Error {
  override readonly name = 'UnknownClubError';
}

const ADVANCE_CHUNK_MS = 15 * 60 * 1000;

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const resolved = resolveOptions(options);
  const faults: Faults = {
    ...DEFAULT_FAULTS,
    ...(options.tokenLifetimeSec !== undefined ? { tokenLifetimeSec: options.tokenLifetimeSec } : {}),
    ...(options.faults ?? {}),
  };
  validateFaults(faults);
  const journal = new Journal();
  let nowMs = resolved.startMs;
  const historyStart = resolved.startMs - Math.round(resolved.historyDays * MS_DAY);

  const runtimes: ClubRuntime[] = resolved.clubs.map((club) => {
    const store = new ClubStore(
      {
        clubId: club.clubId,
        timeZone: club.timeZone,
        plan: club.plan,
        locale: localeForZone(club.timeZone.name),
        ambiguousZone: resolved.ambiguousZone,
        openMinute: 5 * 60,
        closeMinute: 22 * 60,
        open24h: club.open24h,
      },
      journal,
    );
    const simulation = new ClubSimulation(store, {
      seed: resolved.seed,
      initialMembers: club.members,
      ...(club.visits !== undefined ? { historyVisits: club.visits } : {}),
      historyDays: resolved.historyDays,
      activityScale: resolved.activityScale,
      faults,
    });
    simulation.populate(historyStart);
    return {
      clubId: club.clubId,
      apiKey: club.apiKey,
      plan: club.plan,
      timeZone: club.timeZone.name,
      store,
      simulation,
    };
  });
  const runAll = (from: number, to: number) => {
    for (let t = from; t < to; ) {
      const end = Math.min(to, t + ADVANCE_CHUNK_MS);
      for (const club of runtimes) club.simulation.run(t, end);
      t = end;
    }
  };
  runAll(historyStart, resolved.startMs);
  for (const club of runtimes) club.store.journaling = true;

  const clubsByKey = new Map(runtimes.map((c) => [c.apiKey, c]));
  const clubsById = new Map(runtimes.map((c) => [c.clubId, c]));
  const keyRng = new SeededRandom(resolved.seed, 'jwt-key');
  const signingKey = Buffer.from(Array.from({ length: 32 }, () => keyRng.int(0, 255)));
  const forced = new ForcedResponses();
  const quota = new QuotaLedger(resolved.quotaScale);
  let origin = '';
  const api = new HttpApi({
    origin: () => origin,
    nowMs: () => nowMs,
    clubsByKey,
    tokens: new AccessTokenIssuer(resolved.integrator, signingKey),
    faults,
    forced,
    quota,
    journal,
    faultRng: new SeededRandom(resolved.seed, 'faults'),
  });

  const server: Server = createServer(api.listener);
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(resolved.port, resolved.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  origin = `http://${host}:${address.port}`;
  const url = `${origin}${BASE_PATH}`;

  let live: NodeJS.Timeout | undefined;
  const advance = (ms: number) => {
    if (!(ms >= 0) || !Number.isFinite(ms))
      throw new RangeError(`advance(ms) needs a finite ms >= 0, got ${ms}`);
    const target = nowMs + Math.floor(ms);
    runAll(nowMs, target);
    nowMs = target;
  };
  const stopLive = () => {
    if (live) clearInterval(live);
    live = undefined;
  };
  const clubOf = (clubId: string): ClubRuntime => {
    const club = clubsById.get(clubId);
    if (!club) throw new UnknownClubError(`no club '${clubId}' in this sandbox`);
    return club;
  };
  const clubsFile = (): ClubsFile => ({
    clubs: runtimes.map((c) => ({
      clubId: c.clubId,
      baseUrl: url,
      timeZone: c.timeZone,
      plan: c.plan,
      credentials: {
        username: resolved.integrator.username,
        password: resolved.integrator.password,
        apiKey: c.apiKey,
      },
    })),
  });

  return {
    url,
    integrator: resolved.integrator,
    clubs: runtimes.map(({ clubId, apiKey, timeZone, plan }) => ({ clubId, apiKey, timeZone, plan })),
    clock: { now: () => new Date(nowMs) },
    advance,
    startLive(liveOptions: LiveOptions = {}) {
      stopLive();
      const speed = liveOptions.speed ?? 1;
      const tickMs = liveOptions.tickMs ?? 250;
      if (!(speed > 0)) throw new RangeError(`speed must be > 0, got ${speed}`);
      let last = Date.now();
      let carry = 0;
      live = setInterval(() => {
        const wall = Date.now();
        carry += (wall - last) * speed;
        last = wall;
        const step = Math.floor(carry);
        carry -= step;
        if (step > 0) advance(step);
      }, tickMs);
      live.unref();
    },
    stopLive,
    journal: {
      entries: (sinceSeq?: number) => journal.entries(sinceSeq),
      get lastSeq() {
        return journal.lastSeq;
      },
    },
    faults,
    failNext(count, status, more = {}) {
      forced.add(count, { ...more, status });
    },
    clearFailures() {
      forced.clear();
    },
    requestCounts(clubId) {
      const club = clubOf(clubId);
      return quota.counts(club.clubId, club.plan, nowMs);
    },
    clubsFile,
    async writeClubsFile(path) {
      await writeFile(path, `${JSON.stringify(clubsFile(), null, 2)}\n`, { mode: 0o600 });
    },
    records(clubId, operation, query = {}) {
      const club = clubOf(clubId);
      const params = new URLSearchParams(query as Record<string, string>);
      const q = parsePageQuery(OPERATIONS[operation], params);
      const all = query.limit === undefined ? { ...q, limit: Number.MAX_SAFE_INTEGER } : q;
      const items = selectItems(club.store, operation, all);
      return parseJsonPreservingInt64(stringifyWithInt64(items)) as Record<string, unknown>[];
    },
    async close() {
      stopLive();
      await new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
