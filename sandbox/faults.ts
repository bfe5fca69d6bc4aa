/**
 * Fault injection: settings read on every request (so tests change them at run time through
 * `sandbox.faults`), and a queue of forced responses (`failNext`). All randomness is seeded.
 */
import {
  InvalidPoisonSettingError,
  POISON_OFF,
  type PoisonInput,
  type PoisonSettings,
  resolvePoison,
} from './poison/settings';
import { STORED_VARIANT_IDS } from './poison/stored-variants';

export interface Faults {
  /** Share of requests (0..1) answered 500, 502 or 503, sometimes with an HTML or plain-text body. */
  errorRate5xx: number;
  /** Share of requests (0..1) answered 429 (throttled) regardless of the monthly quota. */
  rate429: number;
  /** Added latency per request, in ms of wall time. */
  latencyMs: number;
  /** Up to this many more ms of latency, uniformly at random. */
  latencyJitterMs: number;
  /** Lifetime of issued tokens, in seconds of the sandbox clock (also ExpiresIn). */
  tokenLifetimeSec: number;
  /** Records with equal sort keys come out in a different order on every request. */
  unstableOrdering: boolean;
  /** A little activity is generated on each data request (true = always, a number = probability). */
  insertWhilePaging: boolean | number;
  /** Share of new time-stamped records (visits, payments, POS, debt collection) stamped in the past. */
  lateArrivalRate: number;
  /** How far in the past a late record is stamped, at most (minutes). */
  maxLatenessMin: number;
  /**
   * Poison mode (docs/sandbox.md, "Poison mode"): bad records stored in the clubs' data and
   * misbehaving responses. Reads give the resolved, frozen settings; assign `true` (every class
   * on), `false` (off) or the settings to turn on. An invalid value throws InvalidFaultSettingError.
   */
  get poison(): PoisonSettings;
  set poison(value: PoisonInput);
}

/** Fault settings as given to startSandbox: any of the fields, `poison` in any form it takes. */
export type FaultsInput = Partial<Omit<Faults, 'poison'>> & { readonly poison?: PoisonInput };

export const DEFAULT_FAULTS: Readonly<Faults> = {
  errorRate5xx: 0,
  rate429: 0,
  latencyMs: 0,
  latencyJitterMs: 0,
  tokenLifetimeSec: 3600,
  unstableOrdering: false,
  insertWhilePaging: false,
  lateArrivalRate: 0,
  maxLatenessMin: 30,
  poison: POISON_OFF,
};

/** A response forced by `failNext`. */
export interface ForcedResponse {
  readonly status: number;
  /** Defaults to {"Message": "..."} in JSON. */
  readonly body?: string;
  readonly contentType?: string;
  /** Only requests whose path (after the base path, e.g. "/members") starts with this. */
  readonly pathPrefix?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export class ForcedResponses {
  private readonly queue: { remaining: number; response: ForcedResponse }[] = [];

  /**
   * The next `count` matching requests get `response`. `count` may be `Infinity`: every matching
   * request, for the sandbox's life (or until `clear()`), e.g. an endpoint this API does not have:
   * `sandbox.failNext(Infinity, 404, { pathPrefix: '/members/attendance/classes' })`.
   */
  add(count: number, response: ForcedResponse): void {
    if (count > 0) this.queue.push({ remaining: count, response });
  }

  /** Takes the first forced response that applies to the path, if any. */
  take(path: string): ForcedResponse | undefined {
    const at = this.queue.findIndex((f) => !f.response.pathPrefix || path.startsWith(f.response.pathPrefix));
    const entry = this.queue[at];
    if (!entry) return undefined;
    entry.remaining--;
    if (entry.remaining <= 0) this.queue.splice(at, 1);
    return entry.response;
  }

  clear(): void {
    this.queue.length = 0;
  }
}

export class InvalidFaultSettingError extends Error {
  override readonly name = 'InvalidFaultSettingError';
}

/** `faults.poison` resolved, its errors as InvalidFaultSettingError (naming the field). */
function poisonSettings(value: PoisonInput): PoisonSettings {
  try {
    return resolvePoison(value, STORED_VARIANT_IDS);
  } catch (err) {
    if (err instanceof InvalidPoisonSettingError)
      throw new InvalidFaultSettingError(err.message, { cause: err });
    throw err;
  }
}

/**
 * The live fault settings of a sandbox: the defaults overridden by `input`, validated. `poison` is
 * an accessor, so assigning it (directly or through Object.assign) validates and resolves it.
 */
export function createFaults(input: FaultsInput = {}): Faults {
  const { poison, ...plain } = input;
  const { poison: _default, ...defaults } = DEFAULT_FAULTS;
  let current = poisonSettings(poison ?? false);
  const faults = { ...defaults, ...plain } as Faults;
  Object.defineProperty(faults, 'poison', {
    enumerable: true,
    get: () => current,
    set: (value: PoisonInput) => {
      current = poisonSettings(value);
    },
  });
  validateFaults(faults);
  return faults;
}

/** Checks ranges, so a typo (rate 5 instead of 0.5) fails loudly instead of silently. */
export function validateFaults(f: Faults): void {
  const share = (name: keyof Faults, v: number) => {
    if (!(v >= 0 && v <= 1))
      throw new InvalidFaultSettingError(`faults.${name} must be within 0..1, got ${v}`);
  };
  share('errorRate5xx', f.errorRate5xx);
  share('rate429', f.rate429);
  share('lateArrivalRate', f.lateArrivalRate);
  if (typeof f.insertWhilePaging === 'number') share('insertWhilePaging', f.insertWhilePaging);
  for (const name of ['latencyMs', 'latencyJitterMs', 'maxLatenessMin'] as const) {
    if (!(f[name] >= 0)) throw new InvalidFaultSettingError(`faults.${name} must be >= 0, got ${f[name]}`);
  }
  if (!(f.tokenLifetimeSec >= 1 && Number.isInteger(f.tokenLifetimeSec)))
    throw new InvalidFaultSettingError(
      `faults.tokenLifetimeSec must be a positive integer, got ${f.tokenLifetimeSec}`,
    );
}
