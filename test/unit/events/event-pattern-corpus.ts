/**
 * Patterns and events with the answer EventBridge's documentation gives for each: the corpus of
 * test/unit/events/event-pattern.test.ts (offline matcher) and of test/moto/event-pattern-cross-check.ts
 * (the same corpus through moto_server's TestEventPattern, run by hand).
 */

export const baseEvent = {
  version: '0',
  id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718',
  'detail-type': 'Payment Failed',
  source: 'gym-bridge',
  account: '123456789012',
  time: '2025-03-03T02:00:00Z',
  region: 'us-east-1',
  resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-1', 'arn:aws:s3:::bucket-2'],
  detail: {
    eventId: '0123456789abcdef0123456789abcdef',
    eventVersion: 1,
    clubId: 'club-1',
    source: 'paymentHistory',
    reason: 'dishonoured',
    response: 'Dishonoured - Account Closed',
    amount: 40.4,
    count: 300,
    isDishonourFee: false,
    previousResponse: null,
    empty: '',
    emptyList: [],
    tags: ['vip', 'late', 'NSW'],
    scores: [3, 12],
    ip: '10.0.0.27',
    subject: { memberNumber: 'M10042' },
    data: {
      Status: 'PaymentIssue',
      Contact: { OptOutEmail: false, State: 'NSW' },
      FeeBreakdown: [
        { Kind: 'SubscriptionFee', Amount: 39.9 },
        { Kind: 'TransactionFee', Amount: 0.5 },
      ],
    },
  },
};

export type EventJson = Record<string, unknown>;

export interface MatchCase {
  readonly name: string;
  readonly pattern: Record<string, unknown>;
  /** @default baseEvent */
  readonly event?: EventJson;
  readonly matches: boolean;
}

const d = (detail: Record<string, unknown>) => ({ detail });

export const matchCases: readonly MatchCase[] = [
  // envelope fields and exact values
  { name: 'source exact', pattern: { source: ['gym-bridge'] }, matches: true },
  { name: 'source other', pattern: { source: ['gym-bridge.dev'] }, matches: false },
  {
    name: 'detail-type in list (OR)',
    pattern: { 'detail-type': ['Payment Succeeded', 'Payment Failed'] },
    matches: true,
  },
  { name: 'detail-type case differs', pattern: { 'detail-type': ['payment failed'] }, matches: false },
  {
    name: 'source and detail-type (AND)',
    pattern: { source: ['gym-bridge'], 'detail-type': ['Payment Succeeded'] },
    matches: false,
  },
  { name: 'account', pattern: { account: ['123456789012'] }, matches: true },
  { name: 'resources: any element', pattern: { resources: ['arn:aws:s3:::bucket-2'] }, matches: true },
  { name: 'resources: none', pattern: { resources: ['arn:aws:s3:::bucket-3'] }, matches: false },
  { name: 'detail string', pattern: d({ reason: ['dishonoured'] }), matches: true },
  { name: 'detail string other', pattern: d({ reason: ['declined'] }), matches: false },
  { name: 'missing field', pattern: d({ nope: ['dishonoured'] }), matches: false },
  { name: 'nested field', pattern: d({ data: { Contact: { State: ['NSW'] } } }), matches: true },
  { name: 'nested field other', pattern: d({ data: { Contact: { State: ['VIC'] } } }), matches: false },
  { name: 'number exact', pattern: d({ count: [300] }), matches: true },
  { name: 'number as float', pattern: d({ count: [300.0] }), matches: true },
  { name: 'number vs string', pattern: d({ count: ['300'] }), matches: false },
  { name: 'string vs number', pattern: d({ clubId: [1] }), matches: false },
  { name: 'boolean false', pattern: d({ isDishonourFee: [false] }), matches: true },
  { name: 'boolean true', pattern: d({ isDishonourFee: [true] }), matches: false },
  { name: 'null value', pattern: d({ previousResponse: [null] }), matches: true },
  { name: 'null vs missing', pattern: d({ nope: [null] }), matches: false },
  { name: 'null vs string', pattern: d({ reason: [null] }), matches: false },
  { name: 'empty string', pattern: d({ empty: [''] }), matches: true },
  { name: 'array field: any element', pattern: d({ tags: ['late'] }), matches: true },
  { name: 'array field: none', pattern: d({ tags: ['early'] }), matches: false },
  { name: 'array of numbers', pattern: d({ scores: [12] }), matches: true },
  {
    name: 'array of objects: one element',
    pattern: d({ data: { FeeBreakdown: { Kind: ['TransactionFee'] } } }),
    matches: true,
  },
  {
    name: 'array of objects: both fields in one element',
    pattern: d({ data: { FeeBreakdown: { Kind: ['TransactionFee'], Amount: [0.5] } } }),
    matches: true,
  },
  { name: 'object field vs value', pattern: d({ subject: ['M10042'] }), matches: false },
  // prefix / suffix / equals-ignore-case / wildcard
  { name: 'prefix', pattern: d({ response: [{ prefix: 'Dishonoured' }] }), matches: true },
  { name: 'prefix no', pattern: d({ response: [{ prefix: 'Declined' }] }), matches: false },
  { name: 'prefix is case-sensitive', pattern: d({ response: [{ prefix: 'dishonoured' }] }), matches: false },
  {
    name: 'prefix equals-ignore-case',
    pattern: d({ response: [{ prefix: { 'equals-ignore-case': 'DISHONOURED' } }] }),
    matches: true,
  },
  { name: 'prefix on number', pattern: d({ count: [{ prefix: '3' }] }), matches: false },
  { name: 'suffix', pattern: d({ response: [{ suffix: 'Closed' }] }), matches: true },
  { name: 'suffix no', pattern: d({ response: [{ suffix: 'Open' }] }), matches: false },
  {
    name: 'suffix equals-ignore-case',
    pattern: d({ response: [{ suffix: { 'equals-ignore-case': 'account closed' } }] }),
    matches: true,
  },
  {
    name: 'equals-ignore-case',
    pattern: d({ reason: [{ 'equals-ignore-case': 'DISHONOURED' }] }),
    matches: true,
  },
  {
    name: 'equals-ignore-case no',
    pattern: d({ reason: [{ 'equals-ignore-case': 'declined' }] }),
    matches: false,
  },
  { name: 'wildcard', pattern: d({ response: [{ wildcard: 'Dishonoured*Closed' }] }), matches: true },
  { name: 'wildcard no', pattern: d({ response: [{ wildcard: 'Declined*' }] }), matches: false },
  { name: 'wildcard whole', pattern: d({ clubId: [{ wildcard: 'club-*' }] }), matches: true },
  { name: 'wildcard is anchored', pattern: d({ clubId: [{ wildcard: 'lub-*' }] }), matches: false },
  { name: 'wildcard on array', pattern: d({ tags: [{ wildcard: 'l*e' }] }), matches: true },
  { name: 'wildcard is case-sensitive', pattern: d({ reason: [{ wildcard: 'DIS*' }] }), matches: false },
  {
    name: 'wildcard star matches nothing',
    pattern: d({ reason: [{ wildcard: 'dishonoured*' }] }),
    matches: true,
  },
  {
    name: 'wildcard runs do not overlap',
    pattern: d({ clubId: [{ wildcard: 'club-1*-1' }] }),
    matches: false,
  },
  {
    name: 'wildcard escaped star',
    pattern: d({ s: [{ wildcard: 'a\\**' }] }),
    event: { ...baseEvent, detail: { s: 'a*b' } },
    matches: true,
  },
  {
    name: 'wildcard escaped star is not a wildcard',
    pattern: d({ s: [{ wildcard: 'a\\*' }] }),
    event: { ...baseEvent, detail: { s: 'ab' } },
    matches: false,
  },
  {
    name: 'wildcard escaped backslash',
    pattern: d({ s: [{ wildcard: 'a\\\\*' }] }),
    event: { ...baseEvent, detail: { s: 'a\\b' } },
    matches: true,
  },
  {
    name: 'anything-but wildcard',
    pattern: d({ response: [{ 'anything-but': { wildcard: '*Closed' } }] }),
    matches: false,
  },
  {
    name: 'anything-but wildcard no',
    pattern: d({ response: [{ 'anything-but': { wildcard: '*Open' } }] }),
    matches: true,
  },
  {
    name: 'mixed list: exact or prefix',
    pattern: d({ reason: ['declined', { prefix: 'dis' }] }),
    matches: true,
  },
  // anything-but
  { name: 'anything-but string', pattern: d({ reason: [{ 'anything-but': 'declined' }] }), matches: true },
  {
    name: 'anything-but same string',
    pattern: d({ reason: [{ 'anything-but': 'dishonoured' }] }),
    matches: false,
  },
  {
    name: 'anything-but list',
    pattern: d({ reason: [{ 'anything-but': ['declined', 'dishonoured'] }] }),
    matches: false,
  },
  {
    name: 'anything-but list not containing',
    pattern: d({ reason: [{ 'anything-but': ['declined', 'unknown-response'] }] }),
    matches: true,
  },
  { name: 'anything-but number', pattern: d({ count: [{ 'anything-but': 300 }] }), matches: false },
  { name: 'anything-but other number', pattern: d({ count: [{ 'anything-but': [1, 2] }] }), matches: true },
  { name: 'anything-but missing field', pattern: d({ nope: [{ 'anything-but': 'x' }] }), matches: false },
  {
    name: 'anything-but prefix',
    pattern: d({ response: [{ 'anything-but': { prefix: 'Declined' } }] }),
    matches: true,
  },
  {
    name: 'anything-but prefix excluded',
    pattern: d({ response: [{ 'anything-but': { prefix: 'Dishonoured' } }] }),
    matches: false,
  },
  {
    name: 'anything-but suffix excluded',
    pattern: d({ response: [{ 'anything-but': { suffix: 'Closed' } }] }),
    matches: false,
  },
  {
    name: 'anything-but equals-ignore-case',
    pattern: d({ reason: [{ 'anything-but': { 'equals-ignore-case': ['DISHONOURED', 'x'] } }] }),
    matches: false,
  },
  {
    name: 'anything-but array field (an element differs)',
    pattern: d({ tags: [{ 'anything-but': 'vip' }] }),
    matches: true,
  },
  // numeric
  { name: 'numeric >', pattern: d({ amount: [{ numeric: ['>', 40] }] }), matches: true },
  { name: 'numeric > no', pattern: d({ amount: [{ numeric: ['>', 40.4] }] }), matches: false },
  { name: 'numeric >=', pattern: d({ amount: [{ numeric: ['>=', 40.4] }] }), matches: true },
  { name: 'numeric range', pattern: d({ amount: [{ numeric: ['>', 0, '<=', 50] }] }), matches: true },
  { name: 'numeric range no', pattern: d({ amount: [{ numeric: ['>', 0, '<', 40] }] }), matches: false },
  { name: 'numeric =', pattern: d({ count: [{ numeric: ['=', 300] }] }), matches: true },
  { name: 'numeric on string', pattern: d({ clubId: [{ numeric: ['>', 0] }] }), matches: false },
  { name: 'numeric on array', pattern: d({ scores: [{ numeric: ['>', 10] }] }), matches: true },
  { name: 'numeric negative', pattern: d({ amount: [{ numeric: ['>', -5, '<', 0] }] }), matches: false },
  // exists
  { name: 'exists true', pattern: d({ reason: [{ exists: true }] }), matches: true },
  { name: 'exists true missing', pattern: d({ nope: [{ exists: true }] }), matches: false },
  { name: 'exists false missing', pattern: d({ nope: [{ exists: false }] }), matches: true },
  { name: 'exists false present', pattern: d({ reason: [{ exists: false }] }), matches: false },
  { name: 'exists true on null', pattern: d({ previousResponse: [{ exists: true }] }), matches: true },
  {
    name: 'exists nested',
    pattern: d({ data: { Contact: { OptOutEmail: [{ exists: true }] } } }),
    matches: true,
  },
  {
    name: 'exists false nested missing',
    pattern: d({ data: { Nope: { X: [{ exists: false }] } } }),
    matches: true,
  },
  { name: 'exists on array field', pattern: d({ tags: [{ exists: true }] }), matches: true },
  {
    name: 'exists true on an object (not a leaf)',
    pattern: d({ subject: [{ exists: true }] }),
    matches: false,
  },
  // cidr
  { name: 'cidr', pattern: d({ ip: [{ cidr: '10.0.0.0/24' }] }), matches: true },
  { name: 'cidr no', pattern: d({ ip: [{ cidr: '10.0.1.0/24' }] }), matches: false },
  // $or
  {
    name: '$or one branch',
    pattern: {
      source: ['gym-bridge'],
      $or: [d({ reason: ['declined'] }), d({ amount: [{ numeric: ['>', 40] }] })],
    },
    matches: true,
  },
  {
    name: '$or no branch',
    pattern: { $or: [d({ reason: ['declined'] }), { 'detail-type': ['Payment Succeeded'] }] },
    matches: false,
  },
  {
    name: '$or with a failing sibling',
    pattern: { source: ['other'], $or: [d({ reason: ['dishonoured'] }), d({ reason: ['declined'] })] },
    matches: false,
  },
  {
    name: '$or nested in detail',
    pattern: d({ $or: [{ reason: ['declined'] }, { data: { Status: ['PaymentIssue'] } }] }),
    matches: true,
  },
  // a typical rule and the events of other types
  {
    name: 'typical rule',
    pattern: {
      source: ['gym-bridge'],
      'detail-type': ['Member Status Changed'],
      detail: { status: ['PaymentIssue'], eventVersion: [1] },
    },
    event: {
      ...baseEvent,
      'detail-type': 'Member Status Changed',
      detail: { eventVersion: 1, status: 'PaymentIssue', previousStatus: 'Active' },
    },
    matches: true,
  },
  {
    name: 'typical rule, other version',
    pattern: {
      source: ['gym-bridge'],
      'detail-type': ['Member Status Changed'],
      detail: { status: ['PaymentIssue'], eventVersion: [1] },
    },
    event: {
      ...baseEvent,
      'detail-type': 'Member Status Changed',
      detail: { eventVersion: 2, status: 'PaymentIssue', previousStatus: 'Active' },
    },
    matches: false,
  },
];

/** Patterns EventBridge refuses ("Event pattern is not valid"). */
export const invalidPatterns: ReadonlyArray<{ readonly name: string; readonly pattern: unknown }> = [
  { name: 'leaf not a list', pattern: { source: 'gym-bridge' } },
  { name: 'number leaf', pattern: d({ count: 300 }) },
  { name: 'empty list', pattern: { source: [] } },
  { name: 'unknown matcher', pattern: d({ reason: [{ 'starts-with': 'x' }] }) },
  { name: 'matcher with two keys', pattern: d({ reason: [{ prefix: 'a', suffix: 'b' }] }) },
  { name: 'prefix not a string', pattern: d({ reason: [{ prefix: 1 }] }) },
  { name: 'numeric unknown operator', pattern: d({ amount: [{ numeric: ['>>', 1] }] }) },
  { name: 'numeric odd length', pattern: d({ amount: [{ numeric: ['>', 1, '<'] }] }) },
  { name: 'numeric bound not a number', pattern: d({ amount: [{ numeric: ['>', '1'] }] }) },
  { name: 'numeric inverted range', pattern: d({ amount: [{ numeric: ['>', 5, '<', 1] }] }) },
  { name: 'exists not boolean', pattern: d({ reason: [{ exists: 'yes' }] }) },
  { name: 'anything-but with nested list', pattern: d({ reason: [{ 'anything-but': [['x']] }] }) },
  { name: 'anything-but unknown inner', pattern: d({ reason: [{ 'anything-but': { numeric: ['>', 1] } }] }) },
  { name: 'wildcard with consecutive stars', pattern: d({ reason: [{ wildcard: 'a**b' }] }) },
  { name: 'wildcard escaping another character', pattern: d({ reason: [{ wildcard: 'a\\b*' }] }) },
  { name: 'nested list', pattern: d({ reason: [['x']] }) },
  { name: 'pattern not an object', pattern: ['gym-bridge'] },
  { name: '$or not a list', pattern: { $or: { source: ['x'] } } },
  { name: 'cidr not a block', pattern: d({ ip: [{ cidr: '10.0.0.0' }] }) },
];
