/** Stored poison that breaks a field's type: null where a value is expected, the wrong JSON type. */
import { parseNaive } from '../naive-time';
import { getPath, type PoisonSeed, poisonNumber, type RecordShape, setPath } from './shape-common';
import { breach, type StoredVariant, spoilNumber, variant } from './variant-kit';

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

export const NULLS: StoredVariant[] = [
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
    (s) => s.timeIsIdentity,
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

export const WRONG_TYPES: StoredVariant[] = [
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
