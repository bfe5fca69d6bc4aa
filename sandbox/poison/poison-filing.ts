/**
 * Filing poison records in a club's store: in the operation's own index, at their key, like real
 * records, so every page whose filter covers them serves them at the same place. They are never
 * journaled, and the simulation never sees them (they are in no status set or member list).
 */
import type { OperationName } from '../../lambdas/gym-api/operations';
import type { ClubStore, PoisonRecord } from '../club-store';
import { formatNaive } from '../naive-time';
import type { KeyedRecord, MemberRecord, ProspectRecord } from '../records';
import type { SortedIndex } from '../sorted-index';
import { DOORS } from '../vocabulary';

/** The bodies of every poison record filed (so a real record is never taken for one). */
const poisonBodies = new WeakSet<object>();

type AppendIndex = SortedIndex<KeyedRecord<object>>;

/** The index of an append-only operation (whose records are never rekeyed later). */
function appendIndex(store: ClubStore, operation: OperationName): AppendIndex | undefined {
  switch (operation) {
    case 'paymentHistory':
      return store.payments as unknown as AppendIndex;
    case 'posTransactions':
      return store.pos;
    case 'disbursements':
      return store.disbursements;
    case 'debtCollection':
      return store.debts;
    case 'classAttendance':
      return store.classes;
    default:
      return undefined;
  }
}

/** Files `record` in the operation's index, `copies` times in a row. */
export function filePoison(
  store: ClubStore,
  operation: OperationName,
  record: PoisonRecord,
  copies = 1,
): void {
  poisonBodies.add(record.api);
  const { api, key } = record;
  let file: () => void;
  if (operation === 'members') {
    const member = {
      index: -1,
      api,
      startKey: key,
      updatedKey: record.updatedKey ?? key,
    } as unknown as MemberRecord;
    file = () => {
      store.membersByStart.insert(key, member);
      store.membersByUpdate.insert(member.updatedKey, member);
    };
  } else if (operation === 'prospects') {
    const prospect = { index: -1, api, statusKey: key } as unknown as ProspectRecord;
    file = () => void store.prospectsByUpdate.insert(key, prospect);
  } else if (operation === 'visits') {
    store.poisonVisits.push(record);
    const code = -store.poisonVisits.length; // -1 - its place in poisonVisits
    file = () => store.visits.insert(key, code, 0);
  } else {
    const index = appendIndex(store, operation) as AppendIndex;
    const item = { api, key };
    file = () => void index.insert(key, item);
  }
  for (let i = 0; i < copies; i++) file();
}

/**
 * Up to 20 positions from the end of `view` that are the last of their equal keys and `real`
 * (looking back at most 10,000 positions, past poison records and closed hours).
 */
function lastOfTies(
  view: { readonly length: number; keyAt(i: number): number },
  real: (i: number) => boolean,
): number[] {
  const out: number[] = [];
  for (let i = view.length - 1; i >= Math.max(0, view.length - 10_000) && out.length < 20; i--) {
    const lastOfKey = i === view.length - 1 || view.keyAt(i + 1) !== view.keyAt(i);
    if (lastOfKey && real(i)) out.push(i);
  }
  return out;
}

/**
 * Files one of the operation's latest real records once more, right after itself (so it is
 * served twice in a row), unjournaled; `pick(n)` chooses among n candidates. Returns the record
 * as served, or undefined when there is none (or the operation is not append-only).
 */
export function repeatRealRecord(
  store: ClubStore,
  operation: OperationName,
  pick: (count: number) => number,
): PoisonRecord | undefined {
  if (operation === 'visits') return repeatRealVisit(store, pick);
  const index = appendIndex(store, operation);
  if (!index) return undefined;
  const candidates = lastOfTies(index, (i) => !poisonBodies.has(index.itemAt(i).api));
  const at = candidates[pick(candidates.length)];
  if (at === undefined) return undefined;
  const item = index.itemAt(at);
  index.insert(index.keyAt(at), item);
  return { api: item.api as Record<string, unknown>, key: index.keyAt(at) };
}

function repeatRealVisit(store: ClubStore, pick: (count: number) => number): PoisonRecord | undefined {
  const visits = store.visits;
  const candidates = lastOfTies(visits, (i) => (visits.members[i] as number) >= 0);
  const at = candidates[pick(candidates.length)];
  if (at === undefined) return undefined;
  const member = visits.members[at] as number;
  const door = visits.doors[at] as number;
  visits.insert(visits.keyAt(at), member, door);
  const [doorName, scanSource] = DOORS[door] ?? ['', ''];
  const api = {
    MemberNumber: store.members[member]?.api.Number,
    Door: doorName,
    ScanSource: scanSource,
    VisitDateTime: formatNaive(visits.keyAt(at)),
  };
  return { api, key: visits.keyAt(at) };
}
