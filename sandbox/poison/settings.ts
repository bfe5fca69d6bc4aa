/**
 * Poison mode settings (docs/sandbox.md, "Poison mode"): how often bad records are stored in the
 * clubs' data, and how often responses misbehave. Off by default; `true` switches on the profile
 * below; an object switches on what it names (everything it does not name stays off).
 */
import { OPERATION_NAMES, type OperationName } from '../../lambdas/gym-api/operations';

/** Bad records stored like real ones, by class. */
export const STORED_POISON_KINDS = [
  'identity',
  'int64',
  'null',
  'wrongType',
  'unknownEnum',
  'dateFormat',
  'deepNesting',
  'oversized',
  'repeated',
] as const;
export type StoredPoisonKind = (typeof STORED_POISON_KINDS)[number];

/** Response habits, by class: each a share of requests. */
export const RESPONSE_POISON_KINDS = [
  'hugePage',
  'offsetIgnored',
  'limitIgnored',
  'nextStuck',
  'repeatedPage',
  'echoCredentials',
  'tokenControlChar',
] as const;
export type ResponsePoisonKind = (typeof RESPONSE_POISON_KINDS)[number];

export type PoisonKind = StoredPoisonKind | ResponsePoisonKind;

/** The resolved settings, as `sandbox.faults.poison` reads them (frozen: assign a new value). */
export interface PoisonSettings extends Readonly<Record<ResponsePoisonKind, number>> {
  /** Stored bad records of each class, per club per simulated hour (Poisson). */
  readonly stored: Readonly<Record<StoredPoisonKind, number>>;
  /** Operations that get stored bad records. @default all eight */
  readonly operations: readonly OperationName[];
  /** Only these stored variants (`'identity/empty'`, ...; see `STORED_VARIANTS`). @default [] = all */
  readonly variants: readonly string[];
  /** Body size of a huge page, in bytes. @default 104857600 (100 MiB) */
  readonly hugePageBytes: number;
  /** Requests of one club and operation that an offsetIgnored, limitIgnored or nextStuck episode lasts. @default 3 */
  readonly episodeRequests: number;
}

/** What may be assigned to `faults.poison`: a switch, or the settings to turn on. */
export type PoisonInput =
  | boolean
  | ({
      /** Per club per simulated hour: one rate for every class, or a rate per class. */
      readonly stored?: number | Partial<Record<StoredPoisonKind, number>>;
      readonly operations?: readonly OperationName[];
      readonly variants?: readonly string[];
      readonly hugePageBytes?: number;
      readonly episodeRequests?: number;
    } & Partial<Record<ResponsePoisonKind, number>>);

export class InvalidPoisonSettingError extends Error {
  override readonly name = 'InvalidPoisonSettingError';
}

const zeroStored = Object.freeze(
  Object.fromEntries(STORED_POISON_KINDS.map((k) => [k, 0])) as Record<StoredPoisonKind, number>,
);

export const DEFAULT_HUGE_PAGE_BYTES = 100 * 1024 * 1024;

/** Poison off: nothing stored, no response misbehaves. */
export const POISON_OFF: PoisonSettings = Object.freeze({
  stored: zeroStored,
  operations: Object.freeze([...OPERATION_NAMES]),
  variants: Object.freeze([]),
  hugePage: 0,
  offsetIgnored: 0,
  limitIgnored: 0,
  nextStuck: 0,
  repeatedPage: 0,
  echoCredentials: 0,
  tokenControlChar: 0,
  hugePageBytes: DEFAULT_HUGE_PAGE_BYTES,
  episodeRequests: 3,
});

/** What `poison: true` turns on: every class, at rates a chaos run of a few simulated hours meets. */
export const POISON_ON: PoisonSettings = Object.freeze({
  ...POISON_OFF,
  stored: Object.freeze(
    Object.fromEntries(STORED_POISON_KINDS.map((k) => [k, 0.5])) as Record<StoredPoisonKind, number>,
  ),
  hugePage: 0.01,
  offsetIgnored: 0.02,
  limitIgnored: 0.02,
  nextStuck: 0.02,
  repeatedPage: 0.02,
  echoCredentials: 0.02,
  tokenControlChar: 0.05,
});

const INPUT_KEYS = new Set<string>([
  'stored',
  'operations',
  'variants',
  'hugePageBytes',
  'episodeRequests',
  ...RESPONSE_POISON_KINDS,
]);

/** Largest huge page: 2 GiB (a Node string could not hold more, and no test needs it). */
const MAX_HUGE_PAGE_BYTES = 2 ** 31;

function fail(message: string): never {
  throw new InvalidPoisonSettingError(`faults.poison${message}`);
}

function rate(name: string, v: unknown): number {
  if (typeof v !== 'number' || !(v >= 0) || !Number.isFinite(v))
    fail(`.${name} must be a finite number >= 0 (records per club per simulated hour), got ${String(v)}`);
  return v;
}

function share(name: string, v: unknown): number {
  if (typeof v !== 'number' || !(v >= 0 && v <= 1)) fail(`.${name} must be within 0..1, got ${String(v)}`);
  return v;
}

function storedRates(input: unknown): Record<StoredPoisonKind, number> {
  if (input === undefined) return zeroStored;
  if (typeof input === 'number') {
    const r = rate('stored', input);
    return Object.fromEntries(STORED_POISON_KINDS.map((k) => [k, r])) as Record<StoredPoisonKind, number>;
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    fail(`.stored must be a number or an object of rates by class, got ${JSON.stringify(input)}`);
  for (const key of Object.keys(input))
    if (!(STORED_POISON_KINDS as readonly string[]).includes(key))
      fail(`.stored has an unknown class '${key}' (classes: ${STORED_POISON_KINDS.join(', ')})`);
  const rates = input as Partial<Record<StoredPoisonKind, unknown>>;
  return Object.fromEntries(
    STORED_POISON_KINDS.map((k) => [k, rates[k] === undefined ? 0 : rate(`stored.${k}`, rates[k])]),
  ) as Record<StoredPoisonKind, number>;
}

function listOf(name: string, input: unknown, allowed: readonly string[] | undefined): string[] {
  if (!Array.isArray(input)) fail(`.${name} must be an array, got ${JSON.stringify(input)}`);
  for (const item of input)
    if (typeof item !== 'string' || (allowed && !allowed.includes(item)))
      fail(
        `.${name} has an unknown entry ${JSON.stringify(item)}${allowed ? ` (known: ${allowed.join(', ')})` : ''}`,
      );
  return input as string[];
}

function integer(name: string, v: unknown, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    fail(`.${name} must be an integer from ${min} to ${max}, got ${String(v)}`);
  return v;
}

/**
 * The settings an input stands for, validated: a typo (an unknown key, a share of 5, an operation
 * that does not exist) throws InvalidPoisonSettingError naming the field. `knownVariants` checks
 * `variants` (the stored catalogue passes its names).
 */
export function resolvePoison(input: PoisonInput, knownVariants?: readonly string[]): PoisonSettings {
  if (input === false) return POISON_OFF;
  if (input === true) return POISON_ON;
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    fail(` must be true, false or an object of settings, got ${JSON.stringify(input)}`);
  for (const key of Object.keys(input))
    if (!INPUT_KEYS.has(key))
      fail(` has an unknown setting '${key}' (settings: ${[...INPUT_KEYS].join(', ')})`);
  const responses = Object.fromEntries(
    RESPONSE_POISON_KINDS.map((k) => [k, input[k] === undefined ? 0 : share(k, input[k])]),
  ) as Record<ResponsePoisonKind, number>;
  return Object.freeze({
    stored: Object.freeze(storedRates(input.stored)),
    operations: Object.freeze(
      input.operations === undefined
        ? [...OPERATION_NAMES]
        : (listOf('operations', input.operations, OPERATION_NAMES) as OperationName[]),
    ),
    variants: Object.freeze(
      input.variants === undefined ? [] : listOf('variants', input.variants, knownVariants),
    ),
    ...responses,
    hugePageBytes:
      input.hugePageBytes === undefined
        ? DEFAULT_HUGE_PAGE_BYTES
        : integer('hugePageBytes', input.hugePageBytes, 1, MAX_HUGE_PAGE_BYTES),
    episodeRequests:
      input.episodeRequests === undefined
        ? 3
        : integer('episodeRequests', input.episodeRequests, 1, 1_000_000),
  });
}

/** True when any stored class has a rate. */
export function storesPoison(p: PoisonSettings): boolean {
  if (p === POISON_OFF) return false;
  for (const k of STORED_POISON_KINDS) if (p.stored[k] > 0) return true;
  return false;
}

/** True when any response habit has a share. */
export function misbehaves(p: PoisonSettings): boolean {
  if (p === POISON_OFF) return false;
  for (const k of RESPONSE_POISON_KINDS) if (p[k] > 0) return true;
  return false;
}
