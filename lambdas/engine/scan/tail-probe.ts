/**
 * The tail probe (docs/state.md, "Tail probes"): a source whose tail is long and almost never
 * changes (disbursements: 32 hours re-read every minute for a settlement run that comes once a
 * day) asks first whether its window holds more rows than the last full tail counted: one request
 * of one row, at the offset just past them, with the same filter. An empty answer means no row was
 * added, whatever the API's ordering: the poll ends there, with nothing read and nothing written
 * but the cursor. A row, or anything else, reads the whole tail as before, in the same poll.
 *
 * What a count cannot see: a row replaced in place, or one removed and another added. The full tail
 * runs at least every `fullEveryMs` whatever the probes say (and the source's sweep as before), so
 * such a change is published that much later, never lost. A 400 to a probe (an API that refuses an
 * offset past the end) turns probing off for the source: the cursor remembers it.
 */
import { logger } from '../../common/logger';
import { BadRequestError, type Page } from '../../gym-api';
import type { OperationName } from '../../gym-api/operations';
import { toFilterValue } from '../../sources/record-time';
import { type ClubContext, type SourceDefinition, tailLookbackFor } from '../../sources/source';
import type { Cursor } from '../../state/store';
import { planRegularScan } from './plan';
import type { ScanPageReader } from './scan-pages';
import type { EngineScan } from './scan-types';

/** What the cursor keeps of the last full tail (in `stats`, numbers only). */
export interface TailCount {
  /** The tail's filter start, UTC ms (`watermark - lookback` when it was planned). */
  readonly fromMs: number;
  /** The rows the tail counted from it. */
  readonly rows: number;
  /** When that tail ran (its poll's start), UTC ms. */
  readonly fullAtMs: number;
}

const FROM = 'probeFromMs';
const ROWS = 'probeRows';
const FULL_AT = 'probeFullAtMs';
const OFF = 'probeOff';

export function tailCountOf(cursor: Cursor): TailCount | undefined {
  const s = cursor.stats;
  const [fromMs, rows, fullAtMs] = [s?.[FROM], s?.[ROWS], s?.[FULL_AT]];
  if (fromMs === undefined || rows === undefined || fullAtMs === undefined) return undefined;
  return { fromMs, rows, fullAtMs };
}

/** The cursor with the last full tail's count (or none: the next poll reads the whole tail). */
export function withTailCount(cursor: Cursor, count: TailCount | undefined): Cursor {
  const { [FROM]: _f, [ROWS]: _r, [FULL_AT]: _a, ...rest } = cursor.stats ?? {};
  const stats = count
    ? { ...rest, [FROM]: count.fromMs, [ROWS]: count.rows, [FULL_AT]: count.fullAtMs }
    : rest;
  return { ...cursor, stats };
}

type ProbeContext = Omit<ClubContext, 'observedAtMs'>;

/** Where the tail a regular poll would run starts (UTC ms), for the count it will leave. */
export function tailFromMs(cursor: Cursor, source: SourceDefinition, ctx: ProbeContext): number | undefined {
  if (!cursor.watermark) return undefined;
  return Date.parse(cursor.watermark) - tailLookbackFor(source, ctx);
}

/**
 * The probe this poll may send instead of reading the tail, or undefined: only for a source that
 * asks for it, when the regular poll would start a tail (not a baseline, a sweep or a scan in
 * progress), no backfill is pending, and the last full tail is recent enough.
 */
export function plannedProbe(
  cursor: Cursor,
  source: SourceDefinition,
  ctx: ProbeContext,
  startMs: number,
  sweepEveryMs?: number,
): EngineScan | undefined {
  const every = source.kind === 'append' ? source.tailProbe?.fullEveryMs : undefined;
  const count = tailCountOf(cursor);
  if (every === undefined || !count || cursor.stats?.[OFF] === 1 || cursor.backfillFrom !== undefined)
    return undefined;
  if (startMs < count.fullAtMs || startMs - count.fullAtMs >= every) return undefined;
  if (planRegularScan(cursor, source, ctx, startMs, sweepEveryMs).mode !== 'tail') return undefined;
  const fromdate = toFilterValue(count.fromMs, source.filterZone, ctx);
  return {
    mode: 'tail',
    fromdate,
    nextOffset: count.rows,
    startedAt: new Date(startMs).toISOString(),
    pages: 0,
    records: 0,
  };
}

export type ProbeAnswer = 'unchanged' | 'changed' | 'refused';

/** Asks for the one row past the counted ones: none means no row was added. */
export async function probeTail(
  reader: Pick<ScanPageReader, 'spanPage'>,
  probe: EngineScan,
  where: { readonly clubId: string; readonly source: string },
): Promise<ProbeAnswer> {
  const page = await rowsPastCount(reader, probe, 1, where);
  if (page === 'refused') return 'refused';
  return page && page.rawCount === 0 ? 'unchanged' : 'changed';
}

/**
 * Up to `limit` rows past the counted ones (the fast lane's probe asks for the rows themselves):
 * the page, 'refused' when the API answers 400 to the offset, undefined when no whole page came
 * (out of time, or cut by the response cap).
 */
export async function rowsPastCount(
  reader: Pick<ScanPageReader, 'spanPage'>,
  probe: EngineScan,
  limit: number,
  where: { readonly clubId: string; readonly source: string },
): Promise<Page<OperationName> | 'refused' | undefined> {
  try {
    return await reader.spanPage(probe, probe.nextOffset, limit);
  } catch (err) {
    if (!(err instanceof BadRequestError)) throw err;
    logger.warn('the API refused a tail probe (400): this source reads its whole tail from now on', {
      ...where,
      error: err.message,
    });
    return 'refused';
  }
}

/** The cursor after a probe that found nothing added: a successful poll that read no row. */
export function cursorAfterProbe(cursor: Cursor, startMs: number): Cursor {
  const at = new Date(startMs).toISOString();
  const { lastError: _e, pausedUntil: _p, ...health } = cursor.health;
  return {
    ...cursor,
    health: { ...health, lastPollAt: at, lastSuccessAt: at, consecutiveFailures: 0 },
    stats: { ...cursor.stats, lastPages: 1, lastRecords: 0, lastEvents: 0 },
  };
}

/** Whether the API refused a probe of this source: it never probes again. */
export function probesRefused(cursor: Cursor): boolean {
  return cursor.stats?.[OFF] === 1;
}

/** The cursor of a source whose API refused a probe: it never probes again. */
export function cursorWithoutProbes(cursor: Cursor): Cursor {
  return withTailCount({ ...cursor, stats: { ...cursor.stats, [OFF]: 1 } }, undefined);
}
