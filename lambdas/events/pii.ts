/**
 * Per-club PII policy for the API record carried in an event's `data`.
 *
 * - `full`: the record travels as the API gave it.
 * - `minimal` (the default): an allow-list per kind of record (./pii-allow-lists.ts) says which
 *   fields travel; every other field is dropped, at any depth, including any field the API adds
 *   later. What automation needs stays (member/prospect numbers, first name, gender, status,
 *   membership, opt-out flags, amounts, ids, the dates of the business event); what identifies or
 *   contacts a person goes (last name, email, phones, address, suburb, postcode, date of birth,
 *   barcode, fitness passport number; the sales person's and the debt referral's too); a URL
 *   (a prospect's SourcePage) travels as the page alone, without the query a form or a mail link
 *   fills with an e-mail address or a name. Class
 *   attendance, whose shape the API does not document, keeps only fields named in a list of
 *   non-person fields. docs/events.md ("PII policy") prints the lists.
 *
 * Minimising walks the allow-list, not the record: it reads only the fields a list names and
 * descends only into the nested objects a list names, so its depth is that of the lists (two at
 * most), whatever the record holds (a 10,000-deep unknown field is never visited).
 *
 * Secrets (tokens, API keys, passwords) never reach a record in the first place; this module is
 * about personal data only.
 */
import type { DetailType } from './catalog';
import { type AllowList, allowListOf, type FieldRule } from './pii-allow-lists';

export const PII_POLICIES = ['full', 'minimal'] as const;
export type PiiPolicy = (typeof PII_POLICIES)[number];
/** A club that says nothing travels with `minimal`: privacy unless the club opts in. */
export const DEFAULT_PII_POLICY: PiiPolicy = 'minimal';

export const isPiiPolicy = (value: unknown): value is PiiPolicy =>
  typeof value === 'string' && (PII_POLICIES as readonly string[]).includes(value);

/**
 * Returns `data`, the record an event of `detailType` carries, as the policy allows it to travel.
 * `full` returns it unchanged; `minimal` returns a copy holding only the allowed fields (the input
 * is not modified). A record that is not an object is returned as it is, for the event's validation
 * to refuse; a detail-type that carries no record keeps nothing under `minimal`.
 */
export function applyPiiPolicy<T>(data: T, policy: PiiPolicy, detailType: DetailType): T {
  if (policy === 'full' || !isPlainObject(data)) return data;
  return minimise(data, allowListOf(detailType) ?? {}) as T;
}

/** The fields of `record` that `allow` names, each minimised by its rule. */
function minimise(record: Record<string, unknown>, allow: AllowList): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, rule] of entriesOf(allow)) {
    if (!Object.hasOwn(record, field)) continue;
    const value = record[field];
    if (value === null || (rule === 'value' && isScalar(value))) {
      out[field] = value;
    } else if (rule === 'url' && isScalar(value)) {
      const page = typeof value === 'string' ? pageOfUrl(value) : value;
      if (page !== undefined) out[field] = page;
    } else if (isArrayRule(rule)) {
      if (Array.isArray(value))
        out[field] = value.filter(isPlainObject).map((item) => minimise(item, rule[0]));
    } else if (typeof rule === 'object' && isPlainObject(value)) {
      out[field] = minimise(value, rule);
    }
  }
  return out;
}

/**
 * The page a URL (absolute or relative) names, for `minimal`: without userinfo
 * (`https://pat:pw@host`), path parameters (`;jsessionid=`), query and fragment, which web forms,
 * mail campaigns and session handling fill with addresses, names and tokens. Undefined (the field
 * is dropped) when what is left still holds an address: an `@`, plain or percent-encoded.
 */
export function pageOfUrl(url: string): string | undefined {
  let page = url.split(/[?#]/, 1)[0]!;
  const scheme = /^[a-z][a-z\d+.-]*:\/\//i.exec(page);
  if (scheme) {
    const slash = page.indexOf('/', scheme[0].length);
    const authority = page.slice(scheme[0].length, slash === -1 ? undefined : slash);
    const at = authority.lastIndexOf('@');
    if (at !== -1) page = scheme[0] + page.slice(scheme[0].length + at + 1);
  }
  page = page.split(';', 1)[0]!;
  return /@|%40/i.test(page) ? undefined : page;
}

/** The entries of each allow-list, listed once (a record event is minimised on every publish). */
const ENTRIES = new WeakMap<AllowList, readonly (readonly [string, FieldRule])[]>();
function entriesOf(allow: AllowList): readonly (readonly [string, FieldRule])[] {
  let entries = ENTRIES.get(allow);
  if (!entries) {
    entries = Object.entries(allow);
    ENTRIES.set(allow, entries);
  }
  return entries;
}

const isArrayRule = (rule: FieldRule): rule is readonly [AllowList] => Array.isArray(rule);

const isScalar = (value: unknown): value is string | number | boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
