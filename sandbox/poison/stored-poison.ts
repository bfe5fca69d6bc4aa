/**
 * Stored poison: while `faults.poison.stored` has rates, each step of a club's simulation files
 * bad records in its data, stamped within the step, where every request whose filter covers them
 * finds them (at the same place) until the sandbox closes. Each is written to the poison log,
 * never to the journal. Draws come from the club's own poison stream: the data stream, and so
 * every real record and journal entry, is the same with poison on or off.
 */
import { HOUR_MS } from '../../lambdas/common/time-units';
import type { OperationName } from '../../lambdas/gym-api/operations';
import type { ClubStore } from '../club-store';
import { formatNaive } from '../naive-time';
import { SeededRandom } from '../sandbox-random';
import { filePoison, repeatRealRecord } from './poison-filing';
import { type PoisonLog, storedMarker } from './poison-log';
import { getPath, type PoisonKeys, RECORD_SHAPES, type RecordShape } from './record-shapes';
import { type PoisonSettings, STORED_POISON_KINDS, type StoredPoisonKind, storesPoison } from './settings';
import { STORED_VARIANTS, type StoredVariant } from './stored-variants';

type Pool = readonly (readonly [OperationName, StoredVariant])[];

const TWICE_MARKED = STORED_VARIANTS.find((v) => v.id === 'repeated/twice-marked') as StoredVariant;

/** The (operation, variant) pairs of each class that the settings allow, per settings object. */
const pools = new WeakMap<PoisonSettings, Map<StoredPoisonKind, Pool>>();

function poolOf(p: PoisonSettings, kind: StoredPoisonKind): Pool {
  let byKind = pools.get(p);
  if (!byKind) {
    byKind = new Map();
    pools.set(p, byKind);
  }
  let pool = byKind.get(kind);
  if (!pool) {
    pool = p.operations.flatMap((op) =>
      STORED_VARIANTS.filter(
        (v) =>
          v.kind === kind &&
          v.fits(RECORD_SHAPES[op]) &&
          (p.variants.length === 0 || p.variants.includes(v.id)),
      ).map((v) => [op, v] as const),
    );
    byKind.set(kind, pool);
  }
  return pool;
}

/** The record's own id or number, when it is a usable one (for the log). */
function identityOf(api: Record<string, unknown>, shape: RecordShape): string | undefined {
  const idField = shape.idIsIdentity || !shape.documented ? shape.idFields[0] : undefined;
  const value = getPath(api, idField ?? shape.numberField);
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isSafeInteger(value)))
    return value.toString();
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** The time a record is filed under, as the API writes it (members: the `updatedate` order). */
const recordTime = (keys: PoisonKeys) =>
  keys.updatedKey !== undefined ? formatNaive(keys.updatedKey, true) : formatNaive(keys.key);

export class StoredPoison {
  private readonly rng: SeededRandom;

  constructor(
    private readonly store: ClubStore,
    seed: number,
    private readonly faults: { readonly poison: PoisonSettings },
    private readonly log: PoisonLog,
  ) {
    this.rng = new SeededRandom(seed, `poison:${store.clubId}`);
  }

  /** Files the poison due in [t0, t1) (nothing, and no draw, while no stored class has a rate). */
  run(t0: number, t1: number): void {
    const p = this.faults.poison;
    if (!storesPoison(p) || t1 <= t0) return;
    const hours = (t1 - t0) / HOUR_MS;
    const due: { kind: StoredPoisonKind; at: number }[] = [];
    for (const kind of STORED_POISON_KINDS) {
      const rate = p.stored[kind];
      if (!(rate > 0)) continue;
      const count = this.rng.poisson(rate * hours);
      for (let i = 0; i < count; i++) due.push({ kind, at: t0 + Math.floor(this.rng.next() * (t1 - t0)) });
    }
    due.sort((a, b) => a.at - b.at);
    for (const { kind, at } of due) this.add(kind, at, p);
  }

  private add(kind: StoredPoisonKind, atMs: number, p: PoisonSettings): void {
    const pool = poolOf(p, kind);
    if (pool.length === 0) return;
    const [operation, picked] = this.rng.pick(pool);
    if (picked.id === 'repeated/twice-real' && this.repeatReal(operation, atMs)) return;
    const variant = picked.id === 'repeated/twice-real' ? TWICE_MARKED : picked;
    const shape = RECORD_SHAPES[operation];
    const n = this.log.nextStoredNumber();
    const marker = storedMarker(n);
    const keys = shape.keys(this.store, atMs);
    const seed = { marker, n, atMs, store: this.store, rng: this.rng };
    const api = shape.base(seed, keys);
    const spoilt = variant.spoil(api, shape, seed);
    const copies = spoilt.copies ?? 1;
    filePoison(
      this.store,
      operation,
      {
        api,
        key: keys.key,
        ...(keys.updatedKey !== undefined ? { updatedKey: keys.updatedKey } : {}),
        status: 'Active',
      },
      copies,
    );
    const identity = identityOf(api, shape);
    this.log.record(
      {
        where: 'stored',
        clubId: this.store.clubId,
        operation,
        kind,
        variant: variant.name,
        field: spoilt.field,
        markerField: spoilt.markerField ?? shape.numberField,
        expect: spoilt.expect,
        at: new Date(atMs).toISOString(),
        recordTime: recordTime(keys),
        ...(identity !== undefined ? { identity } : {}),
        ...(copies > 1 ? { copies } : {}),
      },
      marker,
    );
  }

  /** A real record served twice in a row; false when the operation has none to repeat yet. */
  private repeatReal(operation: OperationName, atMs: number): boolean {
    const repeated = repeatRealRecord(this.store, operation, (count) => this.rng.int(0, count - 1));
    if (!repeated) return false;
    const identity = identityOf(repeated.api, RECORD_SHAPES[operation]);
    this.log.record({
      where: 'stored',
      clubId: this.store.clubId,
      operation,
      kind: 'repeated',
      variant: 'twice-real',
      field: '*',
      expect: 'once',
      at: new Date(atMs).toISOString(),
      recordTime: formatNaive(repeated.key),
      ...(identity !== undefined ? { identity } : {}),
      copies: 2,
    });
    return true;
  }
}
