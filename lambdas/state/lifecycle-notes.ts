/**
 * What a club's polls changed since its last lifecycle evaluation (docs/lifecycle.md, "What an
 * evaluation reads"), kept on the club state item (attribute `ln`) so the hourly evaluation reads
 * only those subjects and that stretch of the seen set instead of everything:
 * - the member and prospect numbers whose snapshots were written;
 * - the earliest instant of a visit or payment seen entry filed (a late record can be days old).
 *
 * The notes ride on the state writes a poll makes anyway. When they cannot tell the whole story
 * they say `full`: too many subjects to note (NOTES_MAX_CHARS), or a poll stopped without storing
 * them (its lease was never released), or lifecycle events were off: the next evaluation then
 * reads everything, as the first one does.
 *
 * They also say since when the club's evaluations fail, and why (`failed`, docs/lifecycle.md, "When
 * an evaluation fails"): `status` and `explain` read it; the evaluation that succeeds clears it with
 * the rest of the notes.
 */

/** Evaluations of the club that failed in a row since the last one that succeeded. */
export interface LifecycleFailure {
  /** When the first of them failed (epoch ms). */
  readonly sinceMs: number;
  /** When the latest failed (epoch ms). */
  readonly lastMs: number;
  readonly attempts: number;
  /** Why the latest failed (`<ErrorName>: <message>`, cut to FAILURE_MAX_CHARS). */
  readonly error: string;
}

/** The longest reason the notes keep. */
export const FAILURE_MAX_CHARS = 300;
export interface LifecycleNotes {
  readonly members?: readonly string[];
  readonly prospects?: readonly string[];
  /** Earliest `at` (epoch ms) of a visit seen entry filed since the last evaluation. */
  readonly visitsFromMs?: number;
  /** Earliest `at` (epoch ms) of a payment seen entry filed since the last evaluation. */
  readonly paymentsFromMs?: number;
  /** The notes are not the whole story: the next evaluation reads everything. */
  readonly full?: true;
  readonly failed?: LifecycleFailure;
}

/** Notes longer than this (the numbers' characters) become `full`: the state item stays small. */
export const NOTES_MAX_CHARS = 600;

const minOf = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b);

function union(a: readonly string[] | undefined, b: readonly string[] | undefined): string[] | undefined {
  if (!b || b.length === 0) return a ? [...a] : undefined;
  const out = new Set(a ?? []);
  for (const id of b) out.add(id);
  return [...out];
}

const chars = (ids: readonly string[] | undefined) => (ids ?? []).reduce((n, id) => n + id.length + 3, 0);

/** Two failure notes as one: the first failure's start, the latest's time and reason, every attempt. */
function addFailures(
  a: LifecycleFailure | undefined,
  b: LifecycleFailure | undefined,
): LifecycleFailure | undefined {
  if (!a || !b) return a ?? b;
  const latest = b.lastMs >= a.lastMs ? b : a;
  return {
    sinceMs: Math.min(a.sinceMs, b.sinceMs),
    lastMs: latest.lastMs,
    attempts: a.attempts + b.attempts,
    error: latest.error,
  };
}

/** The notes with `more` added; `full` once the numbers outgrow NOTES_MAX_CHARS (they are dropped). */
export function addNotes(notes: LifecycleNotes, more: LifecycleNotes): LifecycleNotes {
  const failed = addFailures(notes.failed, more.failed);
  const failure = failed ? { failed: { ...failed, error: failed.error.slice(0, FAILURE_MAX_CHARS) } } : {};
  if (notes.full || more.full) return { full: true, ...failure };
  const members = union(notes.members, more.members);
  const prospects = union(notes.prospects, more.prospects);
  if (chars(members) + chars(prospects) > NOTES_MAX_CHARS) return { full: true, ...failure };
  const visitsFromMs = minOf(notes.visitsFromMs, more.visitsFromMs);
  const paymentsFromMs = minOf(notes.paymentsFromMs, more.paymentsFromMs);
  return {
    ...(members && members.length > 0 ? { members } : {}),
    ...(prospects && prospects.length > 0 ? { prospects } : {}),
    ...(visitsFromMs === undefined ? {} : { visitsFromMs }),
    ...(paymentsFromMs === undefined ? {} : { paymentsFromMs }),
    ...failure,
  };
}

export const isEmptyNotes = (notes: LifecycleNotes): boolean => Object.keys(notes).length === 0;

/** Compact JSON for the `ln` attribute (short keys: every state write carries it). */
export function encodeNotes(notes: LifecycleNotes): string {
  return JSON.stringify({
    ...(notes.full ? { f: 1 } : {}),
    ...(notes.members ? { m: notes.members } : {}),
    ...(notes.prospects ? { p: notes.prospects } : {}),
    ...(notes.visitsFromMs === undefined ? {} : { v: notes.visitsFromMs }),
    ...(notes.paymentsFromMs === undefined ? {} : { y: notes.paymentsFromMs }),
    ...(notes.failed
      ? { x: [notes.failed.sinceMs, notes.failed.lastMs, notes.failed.attempts, notes.failed.error] }
      : {}),
  });
}

/** A failure note as encoded (`x`: since, last, attempts, reason), or undefined when not one. */
function failureOf(v: unknown): LifecycleFailure | undefined {
  if (!Array.isArray(v) || v.length !== 4) return undefined;
  const [sinceMs, lastMs, attempts, error] = v as unknown[];
  if (!instant(sinceMs) || !instant(lastMs) || !instant(attempts) || typeof error !== 'string')
    return undefined;
  return { sinceMs, lastMs, attempts, error };
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const instant = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The notes of an `ln` attribute; unreadable notes are `full` (read everything, lose nothing). */
export function decodeNotes(text: unknown): LifecycleNotes {
  if (text === undefined) return {};
  let raw: Record<string, unknown> | null = null;
  try {
    raw = typeof text === 'string' ? (JSON.parse(text) as Record<string, unknown> | null) : null;
  } catch {
    raw = null;
  }
  const failed = failureOf(raw?.x);
  const failure = failed ? { failed } : {};
  if (!raw || typeof raw !== 'object' || raw.f === 1) return { full: true, ...failure };
  if (
    (raw.m !== undefined && !strings(raw.m)) ||
    (raw.p !== undefined && !strings(raw.p)) ||
    (raw.v !== undefined && !instant(raw.v)) ||
    (raw.y !== undefined && !instant(raw.y))
  )
    return { full: true, ...failure };
  return addNotes(
    {},
    {
      ...(strings(raw.m) ? { members: raw.m } : {}),
      ...(strings(raw.p) ? { prospects: raw.p } : {}),
      ...(instant(raw.v) ? { visitsFromMs: raw.v } : {}),
      ...(instant(raw.y) ? { paymentsFromMs: raw.y } : {}),
      ...failure,
    },
  );
}
