/**
 * Which lifecycle facts the club's first evaluation passed silently (docs/lifecycle.md, "Baseline
 * and late qualifiers"), kept in the base next to the facts themselves, so that `explain` can tell a
 * baseline fact (no event) from a late qualifier's (announced, with its eventId) even when both came
 * due before tracking began.
 *
 * The rules' document records a fact by a mark (a membership start whose first visit was seen, an
 * `expiry|<date>` or `minimumTerm|<date>` mark, a prospect's trial end), the same whether the fact
 * was announced or passed silently. Only the first evaluation passes facts silently (`announcement`
 * in evaluate.ts), so the marks of its document are exactly the silent ones: they
 * are kept as they are (`silent`), and every mark not among them was announced by a later
 * evaluation. A lapse carries its own flag (`lapse.announced`) and is not repeated here.
 *
 * Each rebase keeps only the silent marks its document still holds (a passed date's mark is dropped
 * by the rules, and so here), so the set only shrinks: a member's entry holds nothing more once its
 * baseline marks are gone. A base of an earlier release has none (`silent` absent): explain then
 * says it does not know which, as before.
 */
import type { LifecycleDoc } from './evaluate';

/** Per member and prospect (by number), the marks its first evaluation recorded silently. */
export interface SilentMarks {
  /** The membership start of a first visit (a local date-time) and `<kind>|<date>` expiry marks. */
  readonly members: Readonly<Record<string, readonly string[]>>;
  /** Trial ends (local date-times). */
  readonly prospects: Readonly<Record<string, readonly string[]>>;
}

type MemberEntry = LifecycleDoc['members'][string];

/** The marks a member's entry records (a lapse aside): its first visit's start and its expiry marks. */
export function memberMarks(entry: MemberEntry | undefined): string[] {
  if (!entry) return [];
  return [...(entry.firstVisitOf === undefined ? [] : [entry.firstVisitOf]), ...(entry.expiring ?? [])];
}

function collect<E>(
  entries: Readonly<Record<string, E>>,
  marksOf: (entry: E, id: string) => readonly string[],
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [id, entry] of Object.entries(entries)) {
    const marks = marksOf(entry, id);
    if (marks.length > 0) out[id] = [...marks];
  }
  return out;
}

/** The silent marks of a first evaluation: every mark its document records. */
export function silentMarksOf(first: Pick<LifecycleDoc, 'members' | 'prospects'>): SilentMarks {
  return {
    members: collect(first.members, (entry) => memberMarks(entry)),
    prospects: collect(first.prospects, (ends) => ends),
  };
}

/** The silent marks the document still records (a rebase keeps only those). */
export function stillSilent(
  silent: SilentMarks,
  life: Pick<LifecycleDoc, 'members' | 'prospects'>,
): SilentMarks {
  const kept = (marks: readonly string[], now: readonly string[]) => marks.filter((m) => now.includes(m));
  return {
    members: collect(silent.members, (marks, id) => kept(marks, memberMarks(life.members[id]))),
    prospects: collect(silent.prospects, (marks, id) => kept(marks, life.prospects[id] ?? [])),
  };
}

const isMarkLists = (v: unknown): v is Record<string, string[]> =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  Object.values(v).every((marks) => Array.isArray(marks) && marks.every((m) => typeof m === 'string'));

/** The stored silent marks, or undefined for a base without them (an earlier release) or a damaged set. */
export function silentMarksIn(stored: unknown): SilentMarks | undefined {
  const s = stored as Partial<SilentMarks> | null | undefined;
  return s && isMarkLists(s.members) && isMarkLists(s.prospects) ? (s as SilentMarks) : undefined;
}
