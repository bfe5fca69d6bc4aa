/** Settings of the sandbox, their defaults, and how club specs are filled in. */
import { MINUTE_MS } from '../lambdas/common/time-units';
import type { AmbiguousZone, PlanName } from './club-profile';
import type { FaultsInput } from './faults';
import { nextOffsetChange, TimeZone } from './naive-time';
import { recordScaleProblem } from './record-padding';
import { SeededRandom } from './sandbox-random';

export interface ClubSpec {
  /** @default `club-<n>` */
  readonly clubId?: string;
  /** IANA zone. @default cycles Australia/Sydney, Europe/London, America/New_York, ... */
  readonly timeZone?: string;
  /** @default club-2 and every third club after it 'advanced', the others 'basic' */
  readonly plan?: PlanName;
  /** Members at the start of the history. @default options.members (300) */
  readonly members?: number;
  /** Visits to generate over the initial history (sets the visit rate). @default about 0.45 a member a day */
  readonly visits?: number;
  /** The club's API key. @default random from the seed */
  readonly apiKey?: string;
  /** Open all night (visits at any hour). @default false: 05:00-22:00 local, true with dstTransition */
  readonly open24h?: boolean;
}

export type DstTransitionKind = 'spring-forward' | 'fall-back';

export interface SandboxOptions {
  /** TCP port; 0 picks a free one. @default 0 */
  readonly port?: number;
  /** Interface to listen on. @default '127.0.0.1' */
  readonly host?: string;
  /** Seed of every random choice (data, keys, credentials, faults). @default 1 */
  readonly seed?: number;
  /** A club count or explicit specs. @default 3 */
  readonly clubs?: number | readonly ClubSpec[];
  /** Members per club unless the spec says otherwise. @default 300 */
  readonly members?: number;
  /** Days of activity generated before the clock start. @default 14 */
  readonly historyDays?: number;
  /** The sandbox clock's start (Date, ISO string with zone, or epoch ms). @default now, floored to the second */
  readonly startTime?: Date | string | number;
  /** Multiplies the monthly plan quotas (0.0001 makes Basic 100 requests). @default 1 */
  readonly quotaScale?: number;
  /**
   * Zone of the date-times whose zone the seed does not state (PaymentDate, POS TransactionDate,
   * disbursement TransactionDate/DisbursementDate, DebtCollectionDate, prospects' status-update
   * time): how they are written and how their `fromdate` is read. @default 'local'
   */
  readonly ambiguousZone?: AmbiguousZone;
  /** Multiplies every activity rate. @default 1 */
  readonly activityScale?: number;
  /** The one integrator login. @default generated from the seed */
  readonly integrator?: { readonly username?: string; readonly password?: string };
  /** Fault settings, poison mode included; the object is live (`sandbox.faults`). @default none */
  readonly faults?: FaultsInput;
  /** Same as faults.tokenLifetimeSec. @default 3600 */
  readonly tokenLifetimeSec?: number;
  /**
   * Start the clock 90 minutes before the next DST change of the first club's zone (of this kind,
   * after `startTime`), and open every club all night, so visits fall in a repeated hour
   * (fall-back) or around a skipped one (spring-forward).
   */
  readonly dstTransition?: DstTransitionKind;
  /**
   * Compression of data pages: 'gzip' answers a request whose Accept-Encoding offers gzip with a
   * gzipped body (as most HTTP front ends of an API do; the seed does not say), 'none' never
   * compresses. @default 'gzip'
   */
  readonly compression?: PageCompression;
  /**
   * Records larger than the generated ones, as a real API may serve them: every record a data page
   * serves carries extra fields the seed does not list, so that its JSON is about this many times
   * its own (record-padding.ts; 1 to MAX_RECORD_SCALE). @default 1
   */
  readonly recordScale?: number;
  /**
   * Day passes, short trials and terms cut short (activity/short-terms.ts): subjects that come to
   * satisfy a lifecycle rule after tracking began. Off keeps the data what it was, draw for draw.
   * @default false
   */
  readonly shortTerms?: boolean;
}

export type PageCompression = 'gzip' | 'none';

export class InvalidSandboxOptionError extends Error {
  override readonly name = 'InvalidSandboxOptionError';
}

export const DEFAULT_CLUB_ZONES = [
  'Australia/Sydney',
  'Europe/London',
  'America/New_York',
  'Asia/Singapore',
  'America/Los_Angeles',
  'Pacific/Auckland',
] as const;

export interface ResolvedClub {
  readonly clubId: string;
  readonly timeZone: TimeZone;
  readonly plan: PlanName;
  readonly members: number;
  readonly visits?: number;
  readonly apiKey: string;
  readonly open24h: boolean;
}

export interface ResolvedOptions {
  readonly port: number;
  readonly host: string;
  readonly seed: number;
  readonly clubs: readonly ResolvedClub[];
  readonly historyDays: number;
  readonly startMs: number;
  readonly quotaScale: number;
  readonly ambiguousZone: AmbiguousZone;
  readonly activityScale: number;
  readonly integrator: { readonly username: string; readonly password: string };
  readonly compression: PageCompression;
  readonly recordScale: number;
  readonly shortTerms: boolean;
}

const HEX = '0123456789abcdef';
const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

function toEpochMs(value: Date | string | number): number {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms))
    throw new InvalidSandboxOptionError(`startTime is not a valid time: ${String(value)}`);
  return ms;
}

function booleanOption(name: string, value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean')
    throw new InvalidSandboxOptionError(`${name} must be true or false, got ${String(value)}`);
  return value;
}

function nonNegative(name: string, value: number, integer = false): number {
  if (!(value >= 0) || (integer && !Number.isInteger(value)))
    throw new InvalidSandboxOptionError(
      `${name} must be a non-negative ${integer ? 'integer' : 'number'}, got ${value}`,
    );
  return value;
}

function compressionOf(value: unknown): PageCompression {
  if (value === undefined) return 'gzip';
  if (value === 'gzip' || value === 'none') return value;
  throw new InvalidSandboxOptionError(`compression must be 'gzip' or 'none', got ${String(value)}`);
}

/** The instant of the next DST change of `kind` in `zone` after `afterMs`. */
export function findDstTransition(zone: TimeZone, afterMs: number, kind: DstTransitionKind): number {
  let from = afterMs;
  for (let i = 0; i < 4; i++) {
    const at = nextOffsetChange(zone, from);
    if (at === undefined) break;
    const forward = zone.offsetMs(at) > zone.offsetMs(at - 1);
    if (forward === (kind === 'spring-forward')) return at;
    from = at;
  }
  throw new InvalidSandboxOptionError(
    `time zone ${zone.name} has no ${kind} transition in the next two years`,
  );
}

/** Club `i` of the specs, its defaults filled in (zone, id, plan, members, API key from the seed). */
function resolveClub(
  spec: ClubSpec,
  i: number,
  seed: number,
  defaultMembers: number,
  dst: boolean,
): ResolvedClub {
  const zoneName = spec.timeZone ?? DEFAULT_CLUB_ZONES[i % DEFAULT_CLUB_ZONES.length] ?? 'UTC';
  let timeZone: TimeZone;
  try {
    timeZone = new TimeZone(zoneName);
  } catch (err) {
    throw new InvalidSandboxOptionError(`club ${i + 1}: unknown time zone '${zoneName}'`, { cause: err });
  }
  const keyRng = new SeededRandom(seed, `api-key:${i}`);
  return {
    clubId: spec.clubId ?? `club-${i + 1}`,
    timeZone,
    plan: spec.plan ?? (i % 3 === 1 ? 'advanced' : 'basic'),
    members: nonNegative('members', spec.members ?? defaultMembers, true),
    ...(spec.visits !== undefined ? { visits: nonNegative('visits', spec.visits, true) } : {}),
    apiKey: spec.apiKey ?? keyRng.chars(32, HEX),
    open24h: spec.open24h ?? dst,
  };
}

export function resolveOptions(options: SandboxOptions = {}): ResolvedOptions {
  const seed = options.seed ?? 1;
  if (!Number.isFinite(seed)) throw new InvalidSandboxOptionError(`seed must be a number, got ${seed}`);
  const rng = new SeededRandom(seed, 'credentials');
  const defaultMembers = nonNegative('members', options.members ?? 300, true);
  const specs: readonly ClubSpec[] =
    typeof options.clubs === 'number' || options.clubs === undefined
      ? Array.from({ length: nonNegative('clubs', options.clubs ?? 3, true) }, () => ({}))
      : options.clubs;
  if (specs.length === 0) throw new InvalidSandboxOptionError('at least one club is needed');
  const dst = options.dstTransition;
  const clubs = specs.map((spec, i) => resolveClub(spec, i, seed, defaultMembers, dst !== undefined));
  const ids = new Set(clubs.map((c) => c.clubId));
  if (ids.size !== clubs.length) throw new InvalidSandboxOptionError('club ids must be unique');
  if (new Set(clubs.map((c) => c.apiKey)).size !== clubs.length)
    throw new InvalidSandboxOptionError('club API keys must be unique');
  let startMs = Math.floor(toEpochMs(options.startTime ?? Date.now()) / 1000) * 1000;
  const firstClub = clubs[0];
  if (dst && firstClub) startMs = findDstTransition(firstClub.timeZone, startMs, dst) - 90 * MINUTE_MS;
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new InvalidSandboxOptionError(`port must be 0..65535, got ${port}`);
  const quotaScale = options.quotaScale ?? 1;
  if (!(quotaScale > 0)) throw new InvalidSandboxOptionError(`quotaScale must be > 0, got ${quotaScale}`);
  const recordScale = options.recordScale ?? 1;
  const scaleProblem = recordScaleProblem(recordScale);
  if (scaleProblem) throw new InvalidSandboxOptionError(scaleProblem);
  const ambiguousZone = options.ambiguousZone ?? 'local';
  if (ambiguousZone !== 'local' && ambiguousZone !== 'utc')
    throw new InvalidSandboxOptionError(
      `ambiguousZone must be 'local' or 'utc', got ${String(ambiguousZone)}`,
    );
  return {
    port,
    host: options.host ?? '127.0.0.1',
    seed,
    clubs,
    historyDays: nonNegative('historyDays', options.historyDays ?? 14),
    startMs,
    quotaScale,
    ambiguousZone,
    activityScale: nonNegative('activityScale', options.activityScale ?? 1),
    compression: compressionOf(options.compression),
    recordScale,
    shortTerms: booleanOption('shortTerms', options.shortTerms),
    integrator: {
      username: options.integrator?.username ?? `integrator-${rng.chars(6, HEX)}`,
      password: options.integrator?.password ?? rng.chars(24, ALNUM),
    },
  };
}
