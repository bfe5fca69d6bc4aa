/**
 * What a source declares (docs/upstream-api.md): the operation it polls, its filter parameter and the
 * zone that filter is in, how far back it re-reads, how a record is identified, and its detector.
 * Sources know nothing about DynamoDB or EventBridge: they turn records into seen-keys, snapshots
 * and events, and the engine does the rest.
 */

import type { SourceName } from '../common/source-names';
import type { Snapshot, SnapshotKind } from '../common/subject-snapshot';
import { HOUR_MS } from '../common/time-units';
import type { BridgeEvent } from '../events/catalog';
import type { PiiPolicy } from '../events/pii';
import type { ItemOf, OperationName } from '../gym-api/operations';
import type { PaymentRuleOverrides } from './payment-classifier';

/**
 * The zone a filter (and the field it filters on) is in:
 * - `local`: the club's IANA zone (the seed says "gym local time");
 * - `utc`: the seed says UTC;
 * - `unstated`: the seed does not say; read with the club's `unstatedZone` setting (default local).
 *   Until the club's reading is confirmed (`unstatedZoneConfirmed`), such a source re-reads its
 *   `unconfirmedZoneLookbackMs` (at least 15 hours) so that either reading is absorbed.
 */
export type FilterZone = 'local' | 'utc' | 'unstated';

export interface ClubContext {
  readonly clubId: string;
  readonly timeZone: string;
  readonly unstatedZone: 'local' | 'utc';
  /**
   * The operator has checked that `unstatedZone` is how this club's API writes its unstated times:
   * sources in that zone then re-read only their `tailLookbackMs`. @default false
   */
  readonly unstatedZoneConfirmed?: boolean;
  readonly piiPolicy: PiiPolicy;
  readonly paymentRules?: PaymentRuleOverrides;
  /** When the bridge observed the records (UTC ms). */
  readonly observedAtMs: number;
}

interface SourceBase<N extends OperationName> {
  readonly name: SourceName;
  readonly operation: N;
  readonly filterParam: 'fromdate' | 'updatedate';
  readonly filterZone: FilterZone;
  /**
   * The record field the filter compares with, for the watermark. Absent when the response does not
   * carry it: the watermark is then the scan's start.
   */
  readonly recordTime?: (item: ItemOf<N>) => string | null | undefined;
  /** Re-read on every poll: absorbs late-arriving records and clock skew (with the zone known). */
  readonly tailLookbackMs: number;
  /**
   * For a source in the `unstated` zone: what it re-reads while the club's reading of that zone is
   * not confirmed, long enough that a wrong reading (up to 14 hours off) loses nothing.
   */
  readonly unconfirmedZoneLookbackMs?: number;
  /**
   * An occasional deeper re-read for records that change after they first appear: `windowMs` every
   * `everyMs`. `paidWindowMs`: the shorter window of the extra sweeps the unused quota pays for
   * (engine/schedule/sweep-budget.ts), the days a late change usually comes in; without it, those
   * sweeps read the whole window.
   */
  readonly sweep?: { readonly windowMs: number; readonly everyMs: number; readonly paidWindowMs?: number };
  /** The record's identity; undefined means it cannot be identified (quarantined). */
  readonly identity: (item: ItemOf<N>) => string | undefined;
  /**
   * True for sources whose endpoint parameters or record shape the API document does not show
   * (classAttendance). Such a source is opt-in (not in `DEFAULT_SOURCES`), and a 400, 403, 404 or an
   * unusable response from it marks it unavailable for the club instead of failing the poll.
   */
  readonly experimental?: boolean;
}

/** One aspect of an append record whose first sighting is an event (e.g. a payment's response). */
export interface Facet {
  /** The seen-set key: record identity plus the fields whose change matters. */
  readonly key: string;
  /**
   * For a record whose facets follow one another (a payment's Response: Approved, later
   * Dishonoured): the record (`group`, e.g. the payment Id) and this facet's `value`. The engine
   * files both with the seen entry and hands a later facet of the same group the values seen
   * before it (`earlier`), from the window Query it runs anyway.
   */
  readonly track?: { readonly group: string; readonly value: string };
  /**
   * What the lifecycle evaluation needs of the record, filed with its seen entry (at most 256
   * UTF-8 bytes; a longer one is not filed): a visit's member number, a payment's member and Id.
   */
  readonly memo?: string;
  readonly events: (ctx: ClubContext, earlier?: readonly string[]) => BridgeEvent[];
}

export interface AppendSource<N extends OperationName = OperationName> extends SourceBase<N> {
  readonly kind: 'append';
  readonly facets: (item: ItemOf<N>, identity: string) => Facet[];
  /**
   * Tails and sweeps keep a seen digest (engine/scan/seen-digest.ts) and read the seen entries only
   * of the hours it does not vouch for: worth it where a window is long and mostly unchanged
   * (disbursements' 32 h tail, payments' 10-day sweep); a digest put costs a write each time new
   * rows come, more than the reads it saves on a short, busy window. @default false
   */
  readonly seenDigest?: boolean;
  /**
   * Tails first ask for the rows past the last full tail's count (up to 100 in one request:
   * engine/scan/tail-probe.ts) and detect those alone (engine/scan/lane-page.ts), the count moving
   * past them; they read the whole tail only when a full page comes, or every `fullEveryMs` whatever
   * the probes say. Worth it where a tail is re-read every minute for the few rows at its end
   * (disbursements' daily settlement run, visits' check-ins); a row replaced in place, or one an API
   * files inside the window rather than at its end, is then published up to `fullEveryMs` later.
   * @default off
   */
  readonly tailProbe?: { readonly fullEveryMs: number };
  /**
   * The fast lane probes this source between the minute's polls (engine/schedule/fast-lane.ts),
   * with the count its tails keep (`tailProbe`). @default false
   */
  readonly fastLane?: boolean;
}

export interface StateSource<N extends OperationName = OperationName> extends SourceBase<N> {
  readonly kind: 'state';
  readonly snapshotKind: SnapshotKind;
  /**
   * The fields whose change is worth an event and a hash of them; continues the previous snapshot's
   * transition count (part of each transition's eventId). The hash depends on the record alone,
   * never on `previous`: the cursor's row marks are made of it (docs/state.md).
   */
  readonly snapshot: (
    item: ItemOf<N>,
    identity: string,
    previous: Snapshot | undefined,
    ctx: ClubContext,
  ) => Snapshot;
  /** Transitions between the stored snapshot (undefined: never seen) and the record. */
  readonly diff: (
    previous: Snapshot | undefined,
    item: ItemOf<N>,
    next: Snapshot,
    ctx: ClubContext,
  ) => BridgeEvent[];
  /** Events for a record first seen during an explicit backfill (e.g. Member Joined since that date). */
  readonly backfillEvents?: (
    item: ItemOf<N>,
    next: Snapshot,
    ctx: ClubContext,
    fromMs: number,
  ) => BridgeEvent[];
}

/**
 * Any source, bound to its own operation: a union over the operations, so each source definition
 * is one without a cast (a source of `visits` reads visits' items, and only those).
 */
export type SourceDefinition = { [N in OperationName]: AppendSource<N> | StateSource<N> }[OperationName];

/** Longest distance between a zone-less local time and UTC (UTC+14 and UTC-12), plus an hour. */
export const ZONE_UNCERTAINTY_MS = 15 * HOUR_MS;

/**
 * What a poll of this source re-reads behind its watermark for this club: the source's tail, or,
 * for a source whose zone the API does not state and a club whose reading of it is not confirmed,
 * the longer lookback that absorbs either reading.
 */
export function tailLookbackFor(
  source: Pick<SourceBase<OperationName>, 'filterZone' | 'tailLookbackMs' | 'unconfirmedZoneLookbackMs'>,
  ctx: Pick<ClubContext, 'unstatedZoneConfirmed'>,
): number {
  if (source.filterZone !== 'unstated' || ctx.unstatedZoneConfirmed) return source.tailLookbackMs;
  return Math.max(source.tailLookbackMs, source.unconfirmedZoneLookbackMs ?? ZONE_UNCERTAINTY_MS);
}
