/** Stored poison that spoils what keys a record: its number (identity) and its int64 ids. */
import { RawJson } from '../json-output';
import { getPath, type PoisonSeed, poisonNumber, type RecordShape, setPath } from './shape-common';
import { breach, type StoredVariant, spoilNumber, variant } from './variant-kit';

/** A number-field value that keeps the marker (a usable, odd identity: publishable). */
const oddNumber = (name: string, make: (num: string, seed: PoisonSeed) => string) =>
  variant(
    'identity',
    name,
    () => true,
    (record, shape, seed) => {
      setPath(record, shape.numberField, make(poisonNumber(seed.n), seed));
      return { field: shape.numberField, expect: 'either' };
    },
  );

/** `num` padded with digits to exactly `bytes` bytes, marker included (ASCII only). */
const padTo = (bytes: number) => (num: string, seed: PoisonSeed) =>
  `${num}${'7'.repeat(Math.max(0, bytes - num.length - seed.marker.length))}${seed.marker}`;

export const IDENTITY: StoredVariant[] = [
  variant(
    'identity',
    'empty',
    () => true,
    (r, s, seed) => ({ ...spoilNumber(r, s, seed, ''), expect: breach(s, s.numberIsIdentity) }),
  ),
  variant(
    'identity',
    'whitespace',
    () => true,
    (r, s, seed) => ({ ...spoilNumber(r, s, seed, ' \t\n '), expect: breach(s, s.numberIsIdentity) }),
  ),
  oddNumber('long-1500', padTo(1500)),
  oddNumber('long-5000', padTo(5000)),
  oddNumber(
    'control-chars',
    (num, s) => `${num.slice(0, 3)}\u0000${num.slice(3)}\u0007\u001b\u007f${s.marker}`,
  ),
  oddNumber('lone-surrogate', (num, s) => `${num}${s.n % 2 === 0 ? '\uD83D' : '\uDE00'}${s.marker}`),
  oddNumber('hash', (_num, s) => `#${s.marker}`),
  oddNumber('key-like', (num, s) => `CLUB#${s.store.clubId}|SEEN#${num}${s.marker}`),
  oddNumber('emoji-rtl', (num, s) => `\u202E${num}\u{1F469}\u200D\u{1F469}\u200D\u{1F467}\u200F${s.marker}`),
  oddNumber('padded', (num, s) => `  ${num}${s.marker}  `),
];

// ---- int64 ids (and amounts, where a record has no id) in forms that are not plain integers ----

/** The id field an int64 variant spoils: the identity id, else the first id, else the amount. */
const idTarget = (s: RecordShape) => s.idFields[0] ?? s.amountField;

/** `9.200000000000000012e18` for 9200000000000000012: the same value in exponent form. */
function exponentForm(value: unknown): string {
  const digits = typeof value === 'bigint' ? value.toString() : undefined;
  if (digits === undefined || digits.startsWith('-')) return Number(value).toExponential();
  const fraction = digits.slice(1).replace(/0+$/, '');
  return `${digits[0]}.${fraction || '0'}e${digits.length - 1}`;
}

const int64 = (name: string, form: (value: unknown, s: RecordShape) => unknown) =>
  variant(
    'int64',
    name,
    (s) => idTarget(s) !== undefined,
    (record, shape) => {
      const field = idTarget(shape) as string;
      const current = getPath(record, field);
      setPath(
        record,
        field,
        form(typeof current === 'number' ? BigInt(Math.trunc(current)) : current, shape),
      );
      const isIdentity = shape.idIsIdentity && field === shape.idFields[0];
      return { field, expect: breach(shape, isIdentity) };
    },
  );

/** The first real id of the operation: its `.0` form rounds onto (or parses as) a real record. */
const FIRST_REAL_IDS: Partial<Record<string, string>> = {
  paymentHistory: '9007199254740993',
  posTransactions: '9007199254800001',
};

export const INT64: StoredVariant[] = [
  int64('decimal-point', (v) => new RawJson(`${String(v)}.0`)),
  int64('exponent', (v) => new RawJson(exponentForm(v))),
  int64('overflow', () => new RawJson('1e400')),
  int64('negative-zero', () => new RawJson('-0')),
  int64('digits-25', (v) => new RawJson(`${String(v)}${'0'.repeat(25)}`.replace(/^-/, '').slice(0, 25))),
  int64('quoted-padded', (v) => ` ${String(v)} `),
  variant(
    'int64',
    'real-id-as-decimal',
    (s) => FIRST_REAL_IDS[s.operation] !== undefined,
    (record, shape) => {
      const field = shape.idFields[0] as string;
      setPath(record, field, new RawJson(`${FIRST_REAL_IDS[shape.operation]}.0`));
      return { field, expect: 'quarantine' };
    },
  ),
];
