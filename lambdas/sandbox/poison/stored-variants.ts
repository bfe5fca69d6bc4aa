/**
 * The catalogue of stored poison: each variant spoils one field (or adds one) of a valid base
 * record (record-shapes.ts), and says what a bridge should do with the result. A variant that
 * does not fit an operation (no int64 in a visit) is never drawn for it.
 */
import { RawJson } from '../json-output';
import { formatNaive, parseNaive } from '../zoned-time';
import { type DeepShape, deepValue, oversizedText } from './big-values';
import type { PoisonExpectation } from './poison-log';
import { getPath, type PoisonSeed, poisonNumber, type RecordShape, setPath } from './record-shapes';
import type { StoredPoisonKind } from './settings';

export interface SpoiltRecord {
  /** The poisoned field (dotted path), `*` when the whole record is. */
  readonly field: string;
  readonly expect: PoisonExpectation;
  /** Set when the marker moved out of the number field (because that is what is spoilt). */
  readonly markerField?: string;
  /** Served this many times in a row. @default 1 */
  readonly copies?: number;
}

export interface StoredVariant {
  readonly kind: StoredPoisonKind;
  readonly name: string;
  /** `kind/name`, as `poison.variants` and the log name it. */
  readonly id: string;
  fits(shape: RecordShape): boolean;
  /** Spoils `record` (the shape's base record, marker in the number field) in place. */
  spoil(record: Record<string, unknown>, shape: RecordShape, seed: PoisonSeed): SpoiltRecord;
}

type Spoil = StoredVariant['spoil'];

const variant = (
  kind: StoredPoisonKind,
  name: string,
  fits: (s: RecordShape) => boolean,
  spoil: Spoil,
): StoredVariant => ({ kind, name, id: `${kind}/${name}`, fits, spoil });

/** A breach of what the document says about the field: quarantine when it identifies or dates. */
const breach = (shape: RecordShape, identifiesOrDates: boolean): PoisonExpectation =>
  shape.documented && identifiesOrDates ? 'quarantine' : 'either';

/** Puts `value` in the number field and the marker in the fallback field. */
function spoilNumber(record: Record<string, unknown>, shape: RecordShape, seed: PoisonSeed, value: unknown) {
  setPath(record, shape.numberField, value);
  const fallback = shape.fallbackMarkerField;
  setPath(record, fallback, `${String(getPath(record, fallback) ?? '')} ${seed.marker}`.trimStart());
  return { field: shape.numberField, markerField: fallback };
}

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

const IDENTITY: StoredVariant[] = [
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

const INT64: StoredVariant[] = [
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

// ---- null where a value is expected -----------------------------------------------------------

const nullAt = (
  name: string,
  target: (s: RecordShape) => string | undefined,
  identifiesOrDates: (s: RecordShape) => boolean,
) =>
  variant(
    'null',
    name,
    (s) => target(s) !== undefined,
    (record, shape) => {
      const field = target(shape) as string;
      setPath(record, field, null);
      return { field, expect: breach(shape, identifiesOrDates(shape)) };
    },
  );

const NULLS: StoredVariant[] = [
  variant(
    'null',
    'number',
    () => true,
    (r, s, seed) => ({ ...spoilNumber(r, s, seed, null), expect: breach(s, s.numberIsIdentity) }),
  ),
  nullAt(
    'id',
    (s) => s.idFields[0],
    (s) => s.idIsIdentity,
  ),
  nullAt(
    'time',
    (s) => s.timeFields[0],
    () => true,
  ),
  nullAt(
    'required',
    (s) => s.requiredField,
    () => false,
  ),
  nullAt(
    'object',
    (s) => s.objectField,
    () => false,
  ),
  variant(
    'null',
    'array-item',
    (s) => s.arrayField !== undefined,
    (record, shape) => {
      const field = shape.arrayField as string;
      setPath(record, field, [null, ...((getPath(record, field) as unknown[]) ?? [])]);
      return { field: `${field}.0`, expect: 'either' };
    },
  ),
];

// ---- wrong JSON types -------------------------------------------------------------------------

const retype = (
  name: string,
  target: (s: RecordShape) => string | undefined,
  value: (current: unknown, s: RecordShape, seed: PoisonSeed) => unknown,
  identifiesOrDates: (s: RecordShape, field: string) => boolean,
) =>
  variant(
    'wrongType',
    name,
    (s) => target(s) !== undefined,
    (record, shape, seed) => {
      const field = target(shape) as string;
      setPath(record, field, value(getPath(record, field), shape, seed));
      return { field, expect: breach(shape, identifiesOrDates(shape, field)) };
    },
  );

/** A plain number field that is not the record's identity, for string-for-number. */
const plainNumber = (s: RecordShape) => s.amountField ?? (s.idIsIdentity ? s.idFields[1] : s.idFields[0]);

const WRONG_TYPES: StoredVariant[] = [
  variant(
    'wrongType',
    'number-for-string',
    () => true,
    (r, s, seed) => ({
      ...spoilNumber(r, s, seed, Number(poisonNumber(seed.n))),
      expect: breach(s, s.numberIsIdentity),
    }),
  ),
  retype(
    'object-for-date',
    (s) => s.timeFields[0],
    (current) => ({ Date: current, Kind: 'Local', Ticks: 638770000000000000n }),
    () => true,
  ),
  retype(
    'string-for-number',
    plainNumber,
    (current) => String(current),
    () => false,
  ),
  retype(
    'string-for-boolean',
    (s) => s.booleanField,
    (current) => String(current),
    () => false,
  ),
  retype(
    'array-for-object',
    (s) => s.objectField,
    () => [],
    () => false,
  ),
  retype(
    'number-for-date',
    (s) => s.dateFields[0],
    (current) => (typeof current === 'string' ? (parseNaive(current) ?? 0) : 0),
    () => false,
  ),
  retype(
    'boolean-for-string',
    (s) => s.stringField,
    () => true,
    () => false,
  ),
];

// ---- values the document does not list -------------------------------------------------------

const enumVariant = (
  name: string,
  value: (current: string, unknown: readonly string[], n: number) => string,
) =>
  variant(
    'unknownEnum',
    name,
    (s) => s.enums.length > 0,
    (record, shape, seed) => {
      const [field, unknown] = seed.rng.pick(shape.enums);
      setPath(record, field, value(String(getPath(record, field) ?? ''), unknown, seed.n));
      return { field, expect: 'either' };
    },
  );

const UNKNOWN_ENUMS: StoredVariant[] = [
  enumVariant('unknown-value', (_c, unknown, n) => unknown[n % unknown.length] as string),
  enumVariant('case-changed', (current, _u, n) => (n % 2 ? current.toLowerCase() : current.toUpperCase())),
  enumVariant('padded', (current) => `${current} `),
  enumVariant('empty', () => ''),
  variant(
    'unknownEnum',
    'email-format',
    (s) => s.emailField !== undefined,
    (record, shape) => {
      setPath(record, shape.emailField as string, 'n/a');
      return { field: shape.emailField as string, expect: 'either' };
    },
  ),
];

// ---- date-times in other formats --------------------------------------------------------------

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Formats of a naive time; `allowed` when the document's pattern accepts the result. */
const DATE_FORMATS: readonly { name: string; allowed: boolean; format: (ms: number) => string }[] = [
  { name: 'zulu', allowed: false, format: (ms) => `${formatNaive(ms)}Z` },
  { name: 'offset', allowed: false, format: (ms) => `${formatNaive(ms)}+10:00` },
  { name: 'space', allowed: false, format: (ms) => formatNaive(ms).replace('T', ' ') },
  {
    name: 'slashes',
    allowed: false,
    format: (ms) => {
      const d = new Date(ms);
      return `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${d.getUTCFullYear()} ${formatNaive(ms).slice(11)}`;
    },
  },
  {
    name: 'us-12h',
    allowed: false,
    format: (ms) => {
      const d = new Date(ms);
      const h = d.getUTCHours();
      return `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${d.getUTCFullYear()} ${h % 12 || 12}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ${h < 12 ? 'AM' : 'PM'}`;
    },
  },
  { name: 'dotnet', allowed: false, format: (ms) => `/Date(${ms})/` },
  { name: 'date-only', allowed: false, format: (ms) => formatNaive(ms).slice(0, 10) },
  {
    name: 'nonexistent-day',
    allowed: false,
    format: (ms) => `${formatNaive(ms).slice(0, 4)}-02-30T10:00:00`,
  },
  { name: 'hour-24', allowed: false, format: (ms) => `${formatNaive(ms).slice(0, 10)}T24:00:00` },
  { name: 'fraction-7', allowed: true, format: (ms) => `${formatNaive(ms)}.1234567` },
  { name: 'min-value', allowed: true, format: () => '0001-01-01T00:00:00' },
];

const DATE_VARIANTS: StoredVariant[] = DATE_FORMATS.map((f) =>
  variant(
    'dateFormat',
    f.name,
    (s) => s.timeFields.length + s.dateFields.length > 0,
    (record, shape, seed) => {
      const fields = [...shape.timeFields, ...shape.dateFields];
      const field = seed.rng.pick(fields);
      const current = getPath(record, field);
      const ms = (typeof current === 'string' ? parseNaive(current) : undefined) ?? seed.atMs;
      setPath(record, field, f.format(ms));
      return { field, expect: breach(shape, !f.allowed && shape.timeFields.includes(field)) };
    },
  ),
);

// ---- deep nesting, oversized fields, repeats ---------------------------------------------------

const deep = (name: string, shape: DeepShape, where: (s: RecordShape) => string | undefined) =>
  variant(
    'deepNesting',
    name,
    (s) => where(s) !== undefined,
    (record, s) => {
      const field = where(s) as string;
      setPath(record, field, deepValue(shape));
      return { field, expect: 'either' };
    },
  );

const DEEP: StoredVariant[] = [
  deep('objects', 'objects', () => 'Extensions'),
  deep('arrays', 'arrays', () => 'Tags'),
  deep('mixed', 'mixed', () => 'Meta'),
  deep('inside-known-object', 'objects', (s) => (s.objectField ? `${s.objectField}.Extensions` : undefined)),
];

const big = (name: string, size: '300k' | '3m', known: boolean) =>
  variant(
    'oversized',
    name,
    () => true,
    (record, s) => {
      const field = known ? s.stringField : 'Notes';
      setPath(record, field, oversizedText(size));
      return { field, expect: 'either' };
    },
  );

const OVERSIZED: StoredVariant[] = [
  big('known-300k', '300k', true),
  big('known-3m', '3m', true),
  big('unknown-300k', '300k', false),
  big('unknown-3m', '3m', false),
];

/** Operations whose real records may be served twice (append-only: nothing rekeys them later). */
export const REPEATABLE_REAL = new Set<string>([
  'visits',
  'paymentHistory',
  'posTransactions',
  'disbursements',
  'debtCollection',
  'classAttendance',
]);

const REPEATED: StoredVariant[] = [
  variant(
    'repeated',
    'twice-marked',
    () => true,
    () => ({ field: '*', expect: 'either', copies: 2 }),
  ),
  // Built by the store from one of its real records (stored-poison.ts); this entry only names it.
  variant(
    'repeated',
    'twice-real',
    (s) => REPEATABLE_REAL.has(s.operation),
    () => ({ field: '*', expect: 'once', copies: 2 }),
  ),
];

export const STORED_VARIANTS: readonly StoredVariant[] = [
  ...IDENTITY,
  ...INT64,
  ...NULLS,
  ...WRONG_TYPES,
  ...UNKNOWN_ENUMS,
  ...DATE_VARIANTS,
  ...DEEP,
  ...OVERSIZED,
  ...REPEATED,
];

export const STORED_VARIANT_IDS: readonly string[] = STORED_VARIANTS.map((v) => v.id);
