/**
 * Fault injection shared by the chaos wrappers (fault-store, fault-sink, fault-fetch,
 * fault-dynamodb): one `FaultInjector` per chaos run holds the fault rates, the planned crash
 * points, a seeded random stream and the counters of what was actually injected; one
 * `PollerProcess` per poll stands for one Lambda invocation (its lease owner, whether it has been
 * killed, and the events it published but has not committed yet).
 *
 * Crash semantics:
 * - `exception`: the step throws a SimulatedCrashError once; the engine's own error handling runs
 *   (finally blocks release the lease, the club poll records the failure).
 * - `kill`: the process dies at that step: the step and every later I/O of the process throw, so
 *   nothing more is written, the lease is left held until it expires, and no failure is recorded.
 */
import { mulberry32 } from '../../lambdas/common/seeded-random';
import type { BridgeEvent } from '../../lambdas/events/catalog';
import { OperationalPublishFaults } from './fault-sink';

/** The steps of a poll where a crash can be planned. */
export const CRASH_TARGETS = [
  'fetch',
  'getCursor',
  'listCursors',
  'putCursor',
  'acquireLease',
  'releaseLease',
  'filterSeen',
  'putSeen',
  'getSnapshots',
  'putSnapshots',
  'putQuarantined',
  'addQuotaUsage',
  'publish',
  'seenSince',
  'putSeenAt',
  'getSeenDigest',
  'putSeenDigest',
] as const;
export type CrashTarget = (typeof CRASH_TARGETS)[number];

/**
 * `before`: the step does nothing and fails; `after`: the step took effect, then the process fails
 * (a lost response); `partial`: half of a batch (publish, putSeen, putSeenAt, putSnapshots) took effect.
 */
export type CrashPhase = 'before' | 'after' | 'partial';
export type CrashMode = 'exception' | 'kill';

export interface CrashPoint {
  readonly target: CrashTarget;
  readonly phase: CrashPhase;
  readonly mode: CrashMode;
  /** Fires on the nth call (1-based) of the target while faults are on. */
  readonly nth: number;
}

/** Targets whose calls are batches that can be cut in half. */
export const BATCH_TARGETS: readonly CrashTarget[] = ['publish', 'putSeen', 'putSeenAt', 'putSnapshots'];

export class SimulatedCrashError extends Error {
  override readonly name = 'SimulatedCrashError';
}

/** Rates (0..1) of the faults the wrappers inject on their own, per call. */
export interface InjectedFaultRates {
  /** DynamoDB calls answered ProvisionedThroughputExceededException (the store retries them). */
  dynamoThrottleRate: number;
  /**
   * Store calls failing with StoreError (throttled past all retries, a service error); a cursor
   * write of a poll's session throws it after taking effect (its checkpoint failed).
   */
  storeErrorRate: number;
  /** acquireLease answered "held by another poller" (the lease's conditional write failed). */
  leaseConflictRate: number;
  /** Data requests before which the sandbox clock jumps ahead (tokens expire mid-scan). */
  clockJumpRate: number;
}

export const NO_FAULT_RATES: InjectedFaultRates = {
  dynamoThrottleRate: 0,
  storeErrorRate: 0,
  leaseConflictRate: 0,
  clockJumpRate: 0,
};

export type Counters = Record<string, number>;

const bump = (counters: Counters, key: string, by = 1) => {
  counters[key] = (counters[key] ?? 0) + by;
};

/**
 * Whether a run fails the first publish of each operational event: three runs in four, drawn from
 * the seed apart from the injector's stream (the seed's other faults stay what they were).
 */
export function failsOperationalPublishes(seed: number): boolean {
  return mulberry32(seed ^ 0x0b5e_7a11)() < 0.75;
}

/**
 * The fault round (1-based, of `rounds`) whose polls send a rotated API key, in one run of four;
 * undefined in the others. Drawn from the seed apart from the injector's stream.
 */
export function rotatedKeyRound(seed: number, rounds: number): number | undefined {
  const random = mulberry32(seed ^ 0x4b1d_c0de);
  if (random() >= 0.25) return undefined;
  return 1 + Math.floor(random() * rounds);
}

/**
 * The fault round from which the club's class-attendance endpoint answers 404 (until the faults
 * are off: Club Source Unavailable), in one run of four; undefined in the others. Drawn from the
 * seed apart from the injector's stream.
 */
export function missingEndpointRound(seed: number, rounds: number): number | undefined {
  const random = mulberry32(seed ^ 0x0404_cafe);
  if (random() >= 0.25) return undefined;
  return 1 + Math.floor(random() * rounds);
}

export class FaultInjector {
  /** While false, wrappers pass every call through untouched (setup, baseline cleanup, settling). */
  active = false;
  rates: InjectedFaultRates;
  /** Added to the lease clock: a killed poller's lease is let to expire without waiting for it. */
  leaseClockOffsetMs = 0;
  /** What was actually injected, by kind. */
  readonly injected: Counters = {};
  /** Crash points that fired, as `target/phase/mode`. */
  readonly firedCrashes: CrashPoint[] = [];
  /** eventIds published and then not committed because the poll failed in between. */
  readonly uncommittedEventIds = new Set<string>();
  /** eventIds delivered by a poll one of whose reads was served stale (stale-reads.ts). */
  readonly staleReadEventIds = new Set<string>();
  /**
   * While faults are on, the first publish of each operational event fails (fault-sink.ts), in
   * the runs `failsOperationalPublishes` picks; undefined in the others.
   */
  readonly operationalPublishFaults: OperationalPublishFaults | undefined;
  /** Every poller process of the run, in the order they started. */
  readonly processes: PollerProcess[] = [];
  readonly #random: () => number;
  readonly #pending: CrashPoint[];
  readonly #calls: Counters = {};
  #processes = 0;

  constructor(seed: number, rates: InjectedFaultRates, crashes: readonly CrashPoint[]) {
    this.#random = mulberry32(seed);
    this.rates = { ...rates };
    this.#pending = [...crashes];
    this.operationalPublishFaults = failsOperationalPublishes(seed)
      ? new OperationalPublishFaults()
      : undefined;
  }

  count(kind: string, by = 1): void {
    bump(this.injected, kind, by);
  }

  /** True with probability `rate` while faults are on. */
  roll(rate: number): boolean {
    return this.active && rate > 0 && this.#random() < rate;
  }

  random(): number {
    return this.#random();
  }

  /** Counts a call of `target` and returns the crash point planned for it, if any. */
  crashFor(target: CrashTarget): CrashPoint | undefined {
    if (!this.active) return undefined;
    bump(this.#calls, target);
    const calls = this.#calls[target] ?? 0;
    const at = this.#pending.findIndex((p) => p.target === target && p.nth === calls);
    if (at < 0) return undefined;
    const [point] = this.#pending.splice(at, 1);
    return point;
  }

  newProcess(label: string): PollerProcess {
    this.#processes++;
    const process = new PollerProcess(this, `${label}-${this.#processes}`);
    this.processes.push(process);
    return process;
  }

  /** Planned crashes that never fired (their target was not called that often). */
  get unfiredCrashes(): readonly CrashPoint[] {
    return this.#pending;
  }
}

/** One poller invocation (a Lambda run): its lease owner, its fate, its uncommitted publishes. */
export class PollerProcess {
  dead = false;
  /** An eventually consistent read of this process missed one of its own writes (stale-reads.ts). */
  servedStaleRead = false;
  /** How often this process delivered each eventId. */
  readonly #deliveries = new Map<string, number>();
  /** Crash points that fired in this process. */
  readonly crashes: CrashPoint[] = [];
  /**
   * The poll's club session was closed (its state committed): whatever it announced is delivered
   * or owed in that state. Set by the harness.
   */
  closed = false;
  /** Every operational event this process handed to a publish, and whether that publish went through. */
  readonly operational: { readonly event: BridgeEvent; readonly published: boolean }[] = [];
  /** Events delivered and not committed yet, by the bridge source (`detail.source`) they belong to. */
  readonly #uncommitted = new Map<string, string[]>();

  constructor(
    readonly injector: FaultInjector,
    readonly owner: string,
  ) {}

  /** Every I/O of a killed process fails. */
  assertAlive(step: string): void {
    if (this.dead) throw new SimulatedCrashError(`process ${this.owner} is dead (at ${step})`);
  }

  /** Fires a crash point: records it, kills the process in kill mode, and returns the error to throw. */
  crash(point: CrashPoint): SimulatedCrashError {
    this.crashes.push(point);
    this.injector.firedCrashes.push(point);
    this.injector.count(`crash:${point.target}/${point.phase}/${point.mode}`);
    if (point.mode === 'kill') this.dead = true;
    return new SimulatedCrashError(`simulated ${point.mode} ${point.phase} ${point.target}`);
  }

  delivered(events: readonly { source: string; eventId: string }[]): void {
    for (const { source, eventId } of events) {
      this.#uncommitted.set(source, [...(this.#uncommitted.get(source) ?? []), eventId]);
      this.#deliveries.set(eventId, (this.#deliveries.get(eventId) ?? 0) + 1);
    }
  }

  /**
   * A publish failed after delivering some events: the poll of their source fails before its
   * commit, so they are never committed by this process.
   */
  abandoned(events: readonly { source: string; eventId: string }[]): void {
    this.delivered(events);
    for (const { source } of events) this.#abandon(source);
  }

  /** The seen keys or snapshots of `source` were written: what it published so far is recorded. */
  committed(source: string): void {
    this.#uncommitted.delete(source);
  }

  #abandon(source: string): void {
    for (const id of this.#uncommitted.get(source) ?? []) this.injector.uncommittedEventIds.add(id);
    this.#uncommitted.delete(source);
  }

  /**
   * The poll is over: whatever is still uncommitted may legitimately be published again; and what a
   * poll delivered after one of its reads was served stale may repeat an earlier delivery (the
   * duplicate such a read allows: same eventId; the journal check still finds a lost or made-up one).
   */
  end(): void {
    for (const source of [...this.#uncommitted.keys()]) this.#abandon(source);
    if (!this.servedStaleRead) return;
    for (const eventId of this.#deliveries.keys()) this.injector.staleReadEventIds.add(eventId);
  }
}
