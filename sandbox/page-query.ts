/**
 * Query validation and page selection for the list operations, driven by the shared operations
 * table (lambdas/gym-api/operations.ts), so the sandbox accepts exactly the parameters each
 * operation takes.
 */
import {
  MAX_PAGE_SIZE,
  OPERATIONS,
  type OperationName,
  type OperationSpec,
} from '../lambdas/gym-api/operations';
import type { ClubStore } from './club-store';
import { formatNaive, parseNaive } from './naive-time';
import type { MemberRecord } from './records';
import { type OrderedView, type PageSelection, type SortedIndex, selectPage } from './sorted-index';
import { DOORS } from './vocabulary';

export class InvalidQueryError extends Error {
  override readonly name = 'InvalidQueryError';
}

export interface PageQuery {
  /** Naive ms of `fromdate`. */
  readonly fromKey?: number;
  /** Naive (UTC) ms of `updatedate`. */
  readonly updatedKey?: number;
  readonly status?: string;
  readonly offset: number;
  readonly limit: number;
}

const INT32_MAX = 2_147_483_647;

function integer(name: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new InvalidQueryError(`Query parameter '${name}' must be an integer from ${min} to ${max}`);
  }
  return Number(raw);
}

function dateTime(name: string, raw: string): number {
  const key = parseNaive(raw);
  if (key === undefined) {
    throw new InvalidQueryError(
      `Query parameter '${name}' must be a date-time like 2025-01-31T13:45:00 (no offset, no Z)`,
    );
  }
  return key;
}

/** Validates the query string of a list operation; throws InvalidQueryError (a 400). */
export function parsePageQuery(op: OperationSpec, params: URLSearchParams): PageQuery {
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (!(op.params as readonly string[]).includes(name)) {
      throw new InvalidQueryError(`Unknown query parameter '${name}' for ${op.path}`);
    }
    if (seen.has(name)) throw new InvalidQueryError(`Query parameter '${name}' is given more than once`);
    seen.add(name);
  }
  const fromdate = params.get('fromdate');
  const updatedate = params.get('updatedate');
  const status = params.get('status');
  const offset = params.get('offset');
  const limit = params.get('limit');
  if (status !== null && !(op.statuses ?? []).includes(status)) {
    throw new InvalidQueryError(`Query parameter 'status' must be one of: ${(op.statuses ?? []).join(', ')}`);
  }
  return {
    ...(fromdate !== null ? { fromKey: dateTime('fromdate', fromdate) } : {}),
    ...(updatedate !== null ? { updatedKey: dateTime('updatedate', updatedate) } : {}),
    ...(status !== null ? { status } : {}),
    offset: offset === null ? 0 : integer('offset', offset, 0, INT32_MAX),
    limit: limit === null ? MAX_PAGE_SIZE : integer('limit', limit, 0, MAX_PAGE_SIZE),
  };
}

type Shuffle = PageSelection['shuffleTies'];

function pageOf<T>(
  index: SortedIndex<T>,
  q: PageQuery,
  shuffle: Shuffle,
  toApi: (item: T) => unknown,
  matches?: (item: T) => boolean,
  fromKey = q.fromKey,
): unknown[] {
  const positions = selectPage(index, {
    ...(fromKey !== undefined ? { fromKey } : {}),
    ...(matches ? { matches: (i: number) => matches(index.itemAt(i)) } : {}),
    offset: q.offset,
    limit: q.limit,
    ...(shuffle ? { shuffleTies: shuffle } : {}),
  });
  return positions.map((i) => toApi(index.itemAt(i)));
}

function membersPage(store: ClubStore, q: PageQuery, shuffle: Shuffle): unknown[] {
  const byStatus = q.status === undefined ? undefined : (m: MemberRecord) => m.api.Status === q.status;
  if (q.updatedKey !== undefined) {
    // With updatedate, records come in order of LastUpdatedUtcDateTime; fromdate narrows further.
    const from = q.fromKey;
    const matches =
      from === undefined && !byStatus
        ? undefined
        : (m: MemberRecord) => (from === undefined || m.startKey >= from) && (!byStatus || byStatus(m));
    return pageOf(store.membersByUpdate, q, shuffle, (m) => m.api, matches, q.updatedKey);
  }
  return pageOf(store.membersByStart, q, shuffle, (m) => m.api, byStatus);
}

function visitsPage(store: ClubStore, q: PageQuery, shuffle: Shuffle): unknown[] {
  const visits = store.visits;
  const view: OrderedView = visits;
  const status = q.status;
  // A negative member index is a poison visit (poison mode): -1 - its place in poisonVisits.
  const statusAt = (i: number) => {
    const m = visits.members[i] as number;
    return m >= 0 ? store.members[m]?.api.Status : store.poisonVisits[-1 - m]?.status;
  };
  const positions = selectPage(view, {
    ...(q.fromKey !== undefined ? { fromKey: q.fromKey } : {}),
    ...(status !== undefined ? { matches: (i: number) => statusAt(i) === status } : {}),
    offset: q.offset,
    limit: q.limit,
    ...(shuffle ? { shuffleTies: shuffle } : {}),
  });
  return positions.map((i) => {
    const m = visits.members[i] as number;
    if (m < 0) return store.poisonVisits[-1 - m]?.api;
    const [door, scanSource] = DOORS[visits.doors[i] as number] ?? ['', ''];
    return {
      MemberNumber: store.members[m]?.api.Number,
      Door: door,
      ScanSource: scanSource,
      VisitDateTime: formatNaive(visits.keys[i] as number),
    };
  });
}

/** The API items of one page of `operation` for the club. */
export function selectItems(
  store: ClubStore,
  operation: OperationName,
  q: PageQuery,
  shuffle?: (indices: number[], from: number, to: number) => void,
): unknown[] {
  const api = <A>(r: { api: A }) => r.api;
  switch (operation) {
    case 'members':
      return membersPage(store, q, shuffle);
    case 'visits':
      return visitsPage(store, q, shuffle);
    case 'paymentHistory':
      return pageOf(store.payments, q, shuffle, api);
    case 'posTransactions':
      return pageOf(store.pos, q, shuffle, api);
    case 'prospects':
      return pageOf(
        store.prospectsByUpdate,
        q,
        shuffle,
        api,
        q.status === undefined ? undefined : (p) => p.api.Status === q.status,
      );
    case 'disbursements':
      return pageOf(store.disbursements, q, shuffle, api);
    case 'debtCollection':
      return pageOf(store.debts, q, shuffle, api);
    case 'classAttendance':
      return pageOf(store.classes, q, shuffle, api);
  }
}

/** The operation served at a path under the base path (e.g. "/members"), if any. */
export function operationAt(path: string): OperationName | undefined {
  for (const op of Object.values(OPERATIONS)) if (op.path === path) return op.name;
  return undefined;
}
