/**
 * The store the engine and the CLI are handed, over the ports an adapter provides (`StateParts`):
 * the club state item (club-states.ts) and the club's other items (seen set, snapshots, quarantine,
 * lifecycle documents), each taking the club first.
 *
 * A club's session is the unit of work: `openClub` takes the lease and returns every port bound to
 * the club, with each write of the items (a port method named put*) fenced by the lease, once, here.
 * Nothing lists the ports' methods: the session finds a method on the state session or on the port
 * that has it (a name is unique across the ports), so a method added to a port is served at once.
 * `view` is the same binding with no lease and no write, for the CLI's status and `explain`.
 *
 * `decorateStore` is the one way to wrap the ports (the test suite's fault injection, the bench's
 * counting): every call of every port goes through `around` with the port's own method name and
 * arguments, unless an override takes that method over.
 */
import { MINUTE_MS } from '../common/time-units';
import type { ItemPorts } from './item-ports';
import { assertClubId, assertSourceName } from './keys';
import type { LifecycleStore } from './lifecycle-items';
import {
  type ClubStateSession,
  type ClubStateStore,
  type ClubStateSummary,
  type Cursor,
  newCursor,
  type QuarantineStore,
  type SeenStore,
  type SnapshotStore,
  type SourceName,
  StoreError,
} from './store';

/** What a store is made of: the club state item and the other items (an adapter's ports, club first). */
export interface StateParts extends ItemPorts {
  readonly clubs: ClubStateStore;
}

/** A port's method with its club bound: the same call without the leading clubId. */
type Bound<F> = F extends (clubId: string, ...rest: infer A) => infer R ? (...rest: A) => R : never;
/** A port with its club bound. */
export type ClubBound<P> = { [K in keyof P]: Bound<P[K]> };
/** A port's reads: a port's writes are its methods named put* (the session fences each of them). */
export type ReadsOf<P> = { [K in keyof P as K extends `put${string}` ? never : K]: P[K] };
/** Every method of the item ports, by name (a name is unique across the ports): derived, not listed. */
type Intersected<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
export type ItemMethods = Intersected<ItemPorts[keyof ItemPorts]>;

/** What a poll notes for the next lifecycle evaluation as it writes (lifecycle/lifecycle-input.ts). */
export type LifecycleNoting = Pick<ClubStateSession, 'noteLifecycle'>;

/** The club's seen set, snapshots, quarantine and lifecycle documents, as its session serves them. */
export type ClubSeen = ClubBound<SeenStore>;
export type ClubSnapshots = ClubBound<SnapshotStore>;
export type ClubQuarantine = ClubBound<QuarantineStore>;
export type ClubLifecycle = ClubBound<LifecycleStore>;

/** What is stored for one club, read-only and without a lease: the CLI's status and `explain`. */
export type ClubView = ClubBound<ReadsOf<ItemMethods>> & {
  readonly clubId: string;
  getCursor(source: SourceName): Promise<Cursor>;
  listCursors(): Promise<Cursor[]>;
  getQuotaUsage(month: string): Promise<number>;
};

/**
 * A poll's unit of work: everything scoped to its club (cursors, counter and lifecycle marks in the
 * state item; seen sets, snapshots, quarantine, lifecycle documents), bound to the club. Every
 * write of the items checks the lease first, so a poller that outlived its lease stops writing (the
 * state item's own writes are conditional on the lease in the table).
 */
export type ClubSession = ClubStateSession & ClubBound<ItemMethods>;

/** The store: what needs no lease. Everything else goes through a club's session. */
export interface StateStore {
  /** Takes the club's lease and opens its session; undefined when another poller holds the club. */
  openClub(clubId: string, owner: string, ttlMs: number, nowMs: number): Promise<ClubSession | undefined>;
  /** Many clubs' cursors and the month's counter, eventually consistent (the dispatcher's read). */
  readClubStates(clubIds: readonly string[], month: string): Promise<Map<string, ClubStateSummary>>;
  /** What is stored for one club, read-only (no lease, no write). */
  view(clubId: string): ClubView;
}

type AnyMethod = (...args: unknown[]) => unknown;

/** The port method `name` with the club bound, or undefined when no port has it. */
function boundItemMethod(
  parts: ItemPorts,
  clubId: string,
  name: string,
  fence: (() => void) | undefined,
): AnyMethod | undefined {
  for (const [key, value] of Object.entries(parts)) {
    if (key === 'clubs') continue;
    const port = value as Record<string, unknown>;
    const method = port[name];
    if (typeof method !== 'function') continue;
    if (!name.startsWith('put')) return (...args) => method.call(port, clubId, ...args);
    if (!fence)
      return () => Promise.reject(new StoreError(`a view of club ${clubId} does not write (${name})`));
    return async (...args) => {
      fence();
      return method.call(port, clubId, ...args);
    };
  }
  return undefined;
}

/** `core` with the item ports bound to its club, methods looked up once and kept. */
function bind<T extends object>(core: T, parts: ItemPorts, clubId: string, fence?: () => void): T {
  const made = new Map<string | symbol, unknown>();
  return new Proxy(core, {
    get(target, name) {
      if (made.has(name)) return made.get(name);
      const own = Reflect.get(target, name, target);
      const value =
        typeof own === 'function'
          ? own.bind(target)
          : own !== undefined || typeof name !== 'string'
            ? own
            : boundItemMethod(parts, clubId, name, fence);
      made.set(name, value);
      return value;
    },
  });
}

/** A club's session: its state session (lease, cursors, counter) and its items, fenced by the lease. */
export function clubSession(core: ClubStateSession, parts: ItemPorts): ClubSession {
  return bind(core, parts, core.clubId, () => core.assertLeaseHeld()) as unknown as ClubSession;
}

/** What is stored for one club, read-only. */
export function clubView(clubId: string, parts: StateParts): ClubView {
  assertClubId(clubId);
  const reads = {
    clubId,
    getCursor: async (source: Parameters<ClubView['getCursor']>[0]) => {
      assertSourceName(source);
      const cursors = await parts.clubs.readCursors(clubId);
      return cursors.find((c) => c.source === source) ?? newCursor(clubId, source);
    },
    listCursors: () => parts.clubs.readCursors(clubId),
    getQuotaUsage: (month: string) => parts.clubs.readQuotaUsage(clubId, month),
  };
  return bind(reads, parts, clubId) as unknown as ClubView;
}

export class BridgeStateStore implements StateStore {
  constructor(readonly parts: StateParts) {}

  async openClub(
    clubId: string,
    owner: string,
    ttlMs: number,
    nowMs: number,
  ): Promise<ClubSession | undefined> {
    const core = await this.parts.clubs.openClub(clubId, owner, ttlMs, nowMs);
    return core && clubSession(core, this.parts);
  }

  readClubStates(clubIds: readonly string[], month: string): Promise<Map<string, ClubStateSummary>> {
    return this.parts.clubs.readClubStates(clubIds, month);
  }

  view(clubId: string): ClubView {
    return clubView(clubId, this.parts);
  }
}

/** The name of a port method as decorations see it. */
export type StoreMethod = {
  [P in keyof StateParts]: keyof StateParts[P];
}[keyof StateParts] &
  string;

/** Runs one call of a port: `call()` makes it on the decorated port. */
export type AroundCall = (
  method: StoreMethod,
  args: readonly unknown[],
  call: () => Promise<unknown>,
) => Promise<unknown>;

/** Methods a decoration implements itself (with the port's arguments; they may call the store as they like). */
export type StoreOverrides = Partial<Record<StoreMethod, (...args: never[]) => Promise<unknown>>>;

/** A port whose every method goes through `around` (or its override). */
function decoratePort<P extends object>(port: P, around: AroundCall, overrides: StoreOverrides): P {
  return new Proxy(port, {
    get(target, name) {
      const own = Reflect.get(target, name, target);
      if (typeof own !== 'function' || typeof name !== 'string') return own;
      const override = overrides[name as StoreMethod] as AnyMethod | undefined;
      if (override) return override;
      return (...args: unknown[]) =>
        around(name as StoreMethod, args, async () => own.apply(target, args) as Promise<unknown>);
    },
  });
}

/** The store with every port call decorated (see the module header). */
export function decorateStore(
  store: BridgeStateStore,
  around: AroundCall,
  overrides: StoreOverrides = {},
): BridgeStateStore {
  const parts = Object.entries(store.parts).map(([key, port]) => [
    key,
    decoratePort(port, around, overrides),
  ]);
  return new BridgeStateStore(Object.fromEntries(parts) as unknown as StateParts);
}

/** The lease `withClubSession` takes when not told: longer than any one piece of work it runs. */
const SESSION_LEASE_MS = 15 * MINUTE_MS;

/** A poll holds the club's lease: a write outside a poll changed nothing. */
export class ClubBusyError extends StoreError {
  override readonly name = 'ClubBusyError';
}

/**
 * Runs `work` in a session of the club and closes it, also when `work` throws (what it changed is
 * written with the release). ClubBusyError when another poller holds the club. For one-off work
 * outside the poll handler: the CLI (`clubs resume`), benchmarks, tests.
 */
export async function withClubSession<T>(
  store: StateStore,
  clubId: string,
  owner: string,
  work: (session: ClubSession) => Promise<T>,
  leaseMs = SESSION_LEASE_MS,
): Promise<T> {
  const session = await store.openClub(clubId, owner, leaseMs, Date.now());
  if (!session) {
    throw new ClubBusyError(
      `club ${clubId} is being polled right now; nothing was changed: try again in a minute`,
    );
  }
  try {
    return await work(session);
  } finally {
    await session.close();
  }
}
