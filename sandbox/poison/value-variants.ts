/**
 * Stored poison in a field's value: values the document does not list, date-times in other
 * formats, 6,000-deep unknown fields, 300 KB and 3 MB fields, and records served twice.
 */
import { formatNaive, parseNaive } from '../naive-time';
import { type DeepShape, deepValue, oversizedText } from './big-values';
import { getPath, type RecordShape, setPath } from './shape-common';
import { breach, type StoredVariant, variant } from './variant-kit';

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

export const UNKNOWN_ENUMS: StoredVariant[] = [
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

export const DATE_VARIANTS: StoredVariant[] = DATE_FORMATS.map((f) =>
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

export const DEEP: StoredVariant[] = [
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

export const OVERSIZED: StoredVariant[] = [
  big('known-300k', '300k', true),
  big('known-3m', '3m', true),
  big('unknown-300k', '300k', false),
  big('unknown-3m', '3m', false),
];

/** Operations whose real records may be served twice (append-only: nothing rekeys them later). */
const REPEATABLE_REAL = new Set<string>([
  'visits',
  'paymentHistory',
  'posTransactions',
  'disbursements',
  'debtCollection',
  'classAttendance',
]);

export const REPEATED: StoredVariant[] = [
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
