/**
 * Per-club PII policy for the API record carried in an event's `data`.
 *
 * - `full`: the record travels as the API gave it.
 * - `minimal`: contact details and identifying data are removed; what downstream automation needs
 *   to act (member/prospect number, first name, status, membership, opt-out flags, amounts) stays.
 *
 * `minimal`, precisely (applied at every depth of the record):
 * - A `Contact` object keeps only `OptOutEmail`, `OptOutSms` and `State`; everything else in it
 *   (Email, Mobile, Home, Work, Address, Suburb, Postcode and any field the API adds later) goes.
 * - These fields are removed wherever they appear: Email, Mobile, Home, Work, Phone, Address,
 *   Suburb, Postcode, DateOfBirth, Barcode, FitnessPassportNumber, LastName. That covers the
 *   sales person's Email and LastName and the debt-collection record's Email, Mobile, Address and
 *   LastName.
 * - Fields the API does not document are removed too when their name looks personal (contains
 *   email, phone, mobile, address, postcode/zip, birth, passport, barcode, surname or lastname),
 *   so a field added upstream does not leak before this list is updated.
 * - FirstName is kept (personalised messages), LastName is dropped: a first name alone rarely
 *   identifies a person, the full name does. Gender is kept.
 *
 * Secrets (tokens, API keys, passwords) never reach a record in the first place; this module is
 * about personal data only.
 */

export const PII_POLICIES = ['full', 'minimal'] as const;
export type PiiPolicy = (typeof PII_POLICIES)[number];

export const isPiiPolicy = (value: unknown): value is PiiPolicy =>
  typeof value === 'string' && (PII_POLICIES as readonly string[]).includes(value);

/** Fields kept from a `Contact` object under `minimal`. */
export const MINIMAL_CONTACT_FIELDS: readonly string[] = ['OptOutEmail', 'OptOutSms', 'State'];

/** Documented API fields removed under `minimal`, wherever they appear. */
export const MINIMAL_REMOVED_FIELDS: readonly string[] = [
  'Email',
  'Mobile',
  'Home',
  'Work',
  'Phone',
  'Address',
  'Suburb',
  'Postcode',
  'DateOfBirth',
  'Barcode',
  'FitnessPassportNumber',
  'LastName',
];

const REMOVED = new Set(MINIMAL_REMOVED_FIELDS);
const KEPT = new Set(['OptOutEmail', 'OptOutSms']);
const PERSONAL_NAME =
  /e-?mail|phone|mobile|address|post_?code|zip|birth|passport|barcode|surname|last_?name/i;

const isRemoved = (key: string): boolean => !KEPT.has(key) && (REMOVED.has(key) || PERSONAL_NAME.test(key));

/**
 * Returns `data` as the policy allows it to travel. `full` returns it unchanged; `minimal`
 * returns a copy without personal fields (the input is not modified).
 */
export function applyPiiPolicy<T>(data: T, policy: PiiPolicy): T {
  if (policy === 'full') return data;
  return minimise(data) as T;
}

function minimise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(minimise);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (key === 'Contact' && isPlainObject(field)) {
      out[key] = pick(field, MINIMAL_CONTACT_FIELDS);
    } else if (!isRemoved(key)) {
      out[key] = minimise(field);
    }
  }
  return out;
}

function pick(source: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (key in source) out[key] = source[key];
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
