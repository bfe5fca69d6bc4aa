/**
 * The "PII policy" section of docs/events.md (./catalog-markdown.ts): the rule, then the
 * allow-list of every kind of record (lambdas/events/pii-allow-lists.ts).
 */
import { ALL_DETAIL_TYPES, EVENT_SCHEMAS } from '../lambdas/events/catalog';
import {
  type AllowList,
  CLASS_ATTENDANCE_ALLOWED,
  MINIMAL_ALLOW_LISTS,
  MINIMAL_DROPPED,
  RECORD_KIND_OF,
  RECORD_KINDS,
  type RecordKind,
} from '../lambdas/events/pii-allow-lists';
import { codeList, markdownTable } from './markdown-format';

/** The record each kind names in the API document. */
const RECORD_NAMES: Record<RecordKind, string> = {
  member: 'Member',
  prospect: 'Prospect',
  visit: 'MemberVisit',
  paymentHistory: 'MemberPaymentHistory',
  posTransaction: 'MemberPOSTransaction',
  disbursement: 'Disbursement',
  debtCollection: 'DebtCollection',
  classAttendance: 'class attendance (experimental)',
};

/** "PII policy": the rule, then the allow-list of every kind of record (lambdas/events/pii-allow-lists.ts). */
export function piiPolicySection(): string[] {
  const detailTypesOf = (kind: RecordKind) =>
    Object.entries(RECORD_KIND_OF)
      .filter(([, k]) => k === kind)
      .map(([detailType]) => detailType)
      .join(', ');
  return [
    '## PII policy',
    '',
    'Each club has a PII policy that decides what of the API record travels in `data`:',
    '',
    '- `full`: the record as the API gave it.',
    '- `minimal` (the default): an allow-list per kind of record. Only the fields below travel;',
    '  every other field is dropped, at any depth, including any field the API adds later. What',
    '  automation needs stays (member and prospect numbers, first name, gender, status, membership,',
    '  opt-out flags, amounts, ids, the dates of the business event); what identifies or contacts a',
    '  person goes. `FirstName` stays (personalised messages), `LastName` goes: the full name',
    '  identifies a person. `Contact.State` stays (a state is shared by millions; regional rules need',
    '  it), `Suburb` and `Postcode` go. `OptOutEmail` and `OptOutSms` always stay: automation must',
    '  respect them. A field travels only in the form the API documents: a value as a string, number,',
    '  boolean or null; `Contact`, `Membership` and the other nested objects as an object minimised by',
    "  its own list; `FeeBreakdown[]` and `Items[]` as arrays of such objects. A URL (a prospect's",
    '  `SourcePage`) travels as the page alone, without userinfo, path parameters (`;jsessionid=`),',
    '  query or fragment, where forms and mail links put e-mail addresses and names',
    '  (`/join?email=pat%40example.org` travels as `/join`); when what is left still holds an `@`',
    '  (`/thanks/pat@example.org`), the field is dropped.',
    '',
    ...markdownTable(
      ['`data` of', 'detail-types', 'travels under `minimal`', 'documented fields dropped'],
      RECORD_KINDS.map((kind) => [
        RECORD_NAMES[kind],
        detailTypesOf(kind),
        kind === 'classAttendance'
          ? 'the names listed below, scalar values only'
          : allowListText(MINIMAL_ALLOW_LISTS[kind]),
        kind === 'classAttendance'
          ? 'shape not documented: every field not listed'
          : codeList(MINIMAL_DROPPED[kind]) || 'none',
      ]),
    ),
    '',
    'Class attendance (its shape is not in the API document) keeps only fields with these exact',
    'names, and only with a scalar value; any other field (an instructor, an attendee name, a',
    'nested object) is dropped:',
    '',
    ...Object.entries(CLASS_ATTENDANCE_ALLOWED).map(([group, names]) => `- ${group}: ${codeList(names)}`),
    '',
    `Events without \`data\` are untouched by the policy. The lifecycle events (${lifecycleTypes().join(', ')})`,
    'carry only member or prospect numbers, dates and counts (Payment Recovered also the failed',
    "payment's `Response`, the text Payment Failed carries); the operational events name no person.",
    '',
    'The lists are part of the contract ([events-versioning.md](events-versioning.md)): adding a',
    'documented field to a list is additive; taking one off is breaking for consumers of `minimal`',
    'clubs, although the schemas keep it (optional, as `full` carries it). Fields no schema declares',
    '(what the API does not document, anything in class attendance `data`) were never promised.',
    '',
    'Tokens, passwords and API keys never appear in events, whatever the policy. The examples below',
    'use `full` and fictitious people.',
  ];
}

/** The detail-types whose `detail.source` is 'lifecycle' (docs/lifecycle.md). */
export function lifecycleTypes(): string[] {
  return ALL_DETAIL_TYPES.filter((t) => EVENT_SCHEMAS[t].shape.source.value === 'lifecycle');
}

/** `Number`, `Contact.{OptOutEmail, State}`, `FeeBreakdown[].{DishonourFee}`: what an allow-list lets through. */
function allowListText(list: AllowList): string {
  const inner = (l: AllowList): string[] =>
    Object.entries(l).map(([field, rule]) => {
      if (rule === 'value' || rule === 'url') return field;
      if (Array.isArray(rule)) return `${field}[].{${inner(rule[0] as AllowList).join(', ')}}`;
      return `${field}.{${inner(rule as AllowList).join(', ')}}`;
    });
  return codeList(inner(list));
}
