/**
 * Records for the PII tests, built from the API schemas (lambdas/gym-api/schemas.ts): one with every
 * documented field of a kind of record, and the same with fields the API does not document planted
 * at every level (top, each nested object, each array item).
 */
import type { z } from 'zod';
import {
  DebtCollectionSchema,
  DisbursementSchema,
  MemberPaymentHistorySchema,
  MemberPosTransactionSchema,
  MemberSchema,
  MemberVisitSchema,
  ProspectSchema,
} from '../../../lambdas/gym-api/schemas';

export const API_SCHEMAS = {
  member: MemberSchema,
  prospect: ProspectSchema,
  visit: MemberVisitSchema,
  paymentHistory: MemberPaymentHistorySchema,
  posTransaction: MemberPosTransactionSchema,
  disbursement: DisbursementSchema,
  debtCollection: DebtCollectionSchema,
} as const;
export type DocumentedKind = keyof typeof API_SCHEMAS;

interface Def {
  type: string;
  innerType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
}
const defOf = (schema: z.ZodType) => (schema as unknown as { def: Def }).def;

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (let d = defOf(s); (d.type === 'optional' || d.type === 'nullable') && d.innerType; d = defOf(s))
    s = d.innerType;
  return s;
}

/** Every documented leaf of a record schema, as dotted paths (`Items[].ItemId`). */
export function documentedPaths(schema: z.ZodType, prefix = ''): string[] {
  const shape = defOf(unwrap(schema)).shape ?? {};
  return Object.entries(shape).flatMap(([field, fieldSchema]) => {
    const inner = unwrap(fieldSchema);
    const def = defOf(inner);
    if (def.type === 'object') return documentedPaths(inner, `${prefix}${field}.`);
    if (def.type === 'array' && def.element) return documentedPaths(def.element, `${prefix}${field}[].`);
    return [`${prefix}${field}`];
  });
}

/** A value the leaf schema accepts: a text naming its path, else a date-time, a number, a boolean. */
function leafValue(schema: z.ZodType, path: string): unknown {
  const candidates = [`${path} value`, '2025-03-04T05:06:07', 7, true];
  const found = candidates.find((c) => schema.safeParse(c).success);
  if (found === undefined) throw new Error(`no test value for ${path}`);
  return found;
}

function rawRecord(schema: z.ZodType, prefix = ''): Record<string, unknown> {
  const shape = defOf(unwrap(schema)).shape ?? {};
  return Object.fromEntries(
    Object.entries(shape).map(([field, fieldSchema]) => {
      const inner = unwrap(fieldSchema);
      const def = defOf(inner);
      if (def.type === 'object') return [field, rawRecord(inner, `${prefix}${field}.`)];
      if (def.type === 'array' && def.element)
        return [
          field,
          [rawRecord(def.element, `${prefix}${field}[].`), rawRecord(def.element, `${prefix}${field}[].`)],
        ];
      return [field, leafValue(inner, `${prefix}${field}`)];
    }),
  );
}

/** A record of the kind with every documented field, as the API client delivers it (ids as strings). */
export function documentedRecord(kind: DocumentedKind): Record<string, unknown> {
  return API_SCHEMAS[kind].parse(rawRecord(API_SCHEMAS[kind])) as Record<string, unknown>;
}

/** Fields no API document gives, planted at every level: names of a person, contact details, objects. */
export const UNKNOWN_FIELDS = {
  FullName: 'Pat Privateson',
  DOB: '1985-12-01',
  Cell: '0411 222 333',
  EmergencyContact: { Name: 'Jo Privateson', Phone: '0499 000 111' },
  Aliases: ['Patty', { Email: 'pat.alias@example.org' }],
};

/** `record` with UNKNOWN_FIELDS added to it and to every nested object and array item (a new copy). */
export function withUnknownFields(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...UNKNOWN_FIELDS };
  for (const [field, value] of Object.entries(record)) {
    if (Array.isArray(value))
      out[field] = value.map((item) => (isObject(item) ? withUnknownFields(item) : item));
    else out[field] = isObject(value) ? withUnknownFields(value) : value;
  }
  return out;
}

/** Dotted leaf paths of a minimised record (for comparison with documentedPaths). */
export function leafPaths(value: unknown, prefix = ''): string[] {
  if (!isObject(value)) return [prefix.slice(0, -1)];
  return Object.entries(value).flatMap(([field, v]) => {
    if (Array.isArray(v)) return [...new Set(v.flatMap((item) => leafPaths(item, `${prefix}${field}[].`)))];
    return leafPaths(v, `${prefix}${field}.`);
  });
}

/** `{ Nested: { Nested: ... { Secret: 'deep secret' } } }`, `depth` levels, built without recursion. */
export function deeplyNested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { Secret: 'deep secret' };
  for (let i = 0; i < depth; i++) value = { Nested: value };
  return value;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
