/**
 * The visit history the club's first lifecycle evaluation reads (docs/lifecycle.md, "Baseline and
 * late qualifiers"): every visit from `inactiveDays` before the start of tracking, once, so that a
 * lapse counts from the member's real last visit, and one already past its threshold is the
 * baseline (silent). At the typical club 14 days are about 40 requests; nothing else in the
 * lifecycle asks the API anything.
 *
 * Only each member's latest visit is kept. A read that does not fit in a poll (a club of 50,000
 * members: hundreds of pages) keeps its progress in the club's `history` lifecycle document and the
 * next poll goes on from there; the evaluation waits meanwhile. Paging by offset over data that
 * moves may skip a row: a row read twice shows it, and the read starts over once more from the first
 * page (the latest visit per member is the same however often a row is read).
 */

import { logger } from '../common/logger';
import { DAY_MS } from '../common/time-units';
import { DeadlineExceededError, type GymApiClient } from '../gym-api';
import type { ClubLifecycle } from '../state/state-store';
import { addLocalDays, localAt, normalLocal } from './rules';

/** The history is not read this close to the poll's deadline (the evaluation needs its time too). */
export const HISTORY_MARGIN_MS = 20_000;
/** Reads of the whole history after the first, when rows moved under it. */
const MAX_REREADS = 2;
/** A stored read older than this is started over (the club's reading was interrupted for long). */
const STALE_READ_MS = 2 * DAY_MS;

export interface VisitHistory {
  /** The first local time read (the start of tracking less inactiveDays, as the read began). */
  readonly from: string;
  /** Each member's latest visit from `from` on (local). */
  readonly lastVisits: ReadonlyMap<string, string>;
  /** Requests the read made in this poll. */
  readonly pages: number;
  /** The stored progress to replace once the evaluation is kept (a read that spanned polls). */
  readonly storedVersion: number;
}

export type HistoryRead =
  | ({ readonly done: true } & VisitHistory)
  | { readonly done: false; readonly reason: string; readonly pages: number };

/** The progress of a read that spans polls (the `history` lifecycle document). */
interface HistoryDoc {
  readonly history: 1;
  readonly from: string;
  readonly days: number;
  readonly startedAtMs: number;
  readonly nextOffset: number;
  readonly rereads: number;
  readonly lastVisits: Record<string, string>;
}

export interface HistoryDeps {
  readonly client: GymApiClient;
  readonly store: Pick<ClubLifecycle, 'getLifecycle' | 'putLifecycle'>;
  readonly nowMs: number;
  /** The poll's deadline (epoch ms). */
  readonly deadlineMs: number;
}

function storedProgress(doc: unknown, days: number, nowMs: number): HistoryDoc | undefined {
  const d = doc as Partial<HistoryDoc> | null;
  if (d?.history !== 1 || d.days !== days || typeof d.from !== 'string') return undefined;
  if (typeof d.startedAtMs !== 'number' || nowMs - d.startedAtMs > STALE_READ_MS) return undefined;
  if (!Number.isSafeInteger(d.nextOffset) || typeof d.lastVisits !== 'object' || !d.lastVisits)
    return undefined;
  return d as HistoryDoc;
}

/** A visit's member and local time, or undefined for a row that names no one or no time. */
function visitOf(item: { MemberNumber?: unknown; VisitDateTime?: unknown }): [string, string] | undefined {
  const { MemberNumber: member, VisitDateTime: at } = item;
  if (typeof member !== 'string' || member.trim() === '' || typeof at !== 'string') return undefined;
  try {
    return [member, normalLocal(at)];
  } catch {
    return undefined;
  }
}

/**
 * A row's identity as a 48-bit number (two FNV-1a hashes), to notice one read twice (offset drift)
 * in little memory: a club's hundreds of thousands of rows collide about once in ten thousand reads.
 */
function rowKey(item: { MemberNumber?: unknown; VisitDateTime?: unknown; Door?: unknown }): number {
  const text = `${String(item.MemberNumber)}|${String(item.VisitDateTime)}|${String(item.Door)}`;
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
  }
  return a * 0x10000 + (b & 0xffff);
}

/**
 * Reads (or goes on reading) the club's visit history for its first evaluation: done with every
 * member's latest visit, or not done yet (its progress stored; the evaluation waits).
 */
export async function readVisitHistory(
  deps: HistoryDeps,
  club: { readonly clubId: string; readonly timeZone: string },
  inactiveDays: number,
): Promise<HistoryRead> {
  if (Date.now() > deps.deadlineMs - HISTORY_MARGIN_MS)
    return { done: false, reason: 'too close to the deadline to read the visit history', pages: 0 };
  const stored = await deps.store.getLifecycle('history');
  const progress = storedProgress(stored?.doc, inactiveDays, deps.nowMs);
  let state: HistoryDoc = progress ?? {
    history: 1,
    from: addLocalDays(localAt(deps.nowMs, club.timeZone), -inactiveDays),
    days: inactiveDays,
    startedAtMs: deps.nowMs,
    nextOffset: 0,
    rereads: 0,
    lastVisits: {},
  };
  const lastVisits = new Map(Object.entries(state.lastVisits));
  let pages = 0;
  let offset = state.nextOffset;
  const seen = new Set<number>();
  let drift = false;
  try {
    for (;;) {
      for await (const page of deps.client.pages(
        'visits',
        { fromdate: state.from },
        { startOffset: offset, deadline: deps.deadlineMs - HISTORY_MARGIN_MS },
      )) {
        pages++;
        for (const item of page.items) {
          const key = rowKey(item);
          if (seen.has(key)) drift = true;
          else seen.add(key);
          const visit = visitOf(item);
          if (!visit || visit[1] < state.from) continue;
          const [member, at] = visit;
          const known = lastVisits.get(member);
          if (!known || at > known) lastVisits.set(member, at);
        }
        offset = page.offset + Math.max(1, page.rawCount);
      }
      if (!drift || state.rereads >= MAX_REREADS) break;
      logger.warn('lifecycle visit history: a row was read twice (rows moved while paging): read again', {
        clubId: club.clubId,
        rereads: state.rereads + 1,
      });
      state = { ...state, rereads: state.rereads + 1 };
      offset = 0;
      seen.clear();
      drift = false;
    }
  } catch (err) {
    if (!(err instanceof DeadlineExceededError)) throw err;
    const next: HistoryDoc = { ...state, nextOffset: offset, lastVisits: Object.fromEntries(lastVisits) };
    if (pages > 0 || !progress) await deps.store.putLifecycle(next, stored?.version ?? 0, 'history');
    return {
      done: false,
      reason: `reading the visit history since ${state.from} (${offset} rows so far): the next poll goes on`,
      pages,
    };
  }
  return { done: true, from: state.from, lastVisits, pages, storedVersion: stored?.version ?? 0 };
}

/** Replaces a stored read once the first evaluation is kept (its pieces are deleted with it). */
export async function clearVisitHistory(
  store: Pick<ClubLifecycle, 'putLifecycle'>,
  storedVersion: number,
): Promise<void> {
  if (storedVersion > 0) await store.putLifecycle({ history: 1, done: true }, storedVersion, 'history');
}

/** The visits of the window, and of the history read for a first evaluation. */
export function withHistory(
  visits: Map<string, string[]>,
  history: VisitHistory | undefined,
): Map<string, string[]> {
  if (!history) return visits;
  for (const [member, at] of history.lastVisits) visits.set(member, [...(visits.get(member) ?? []), at]);
  return visits;
}
