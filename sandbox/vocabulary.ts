/**
 * Fixed vocabularies of the synthetic data: names, streets, plans, doors, funnel labels, classes and the
 * payment Response strings (a fixed set: the bridge's payment classifier is tested against it).
 * Data only (word lists and the types of their entries); the shop's products and tills are in
 * products.ts, the clubs' locales, with their address and phone formats, in locales.ts.
 */

export const PAYMENT_RESPONSES = {
  approved: 'Approved',
  declined: ['Declined - Insufficient Funds', 'Declined - Do Not Honour', 'Declined - Expired Card'],
  dishonoured: ['Dishonoured - Refer to Customer', 'Dishonoured - Account Closed'],
} as const;

export const FIRST_NAMES = [
  'Olivia',
  'Liam',
  'Charlotte',
  'Noah',
  'Amelia',
  'Oliver',
  'Isla',
  'Jack',
  'Mia',
  'William',
  'Ava',
  'Leo',
  'Grace',
  'Lucas',
  'Chloe',
  'Henry',
  'Zoe',
  'Thomas',
  'Ruby',
  'James',
  'Sophie',
  'Ethan',
  'Emily',
  'Mason',
  'Harper',
  'Hugo',
  'Ella',
  'Archie',
  'Lily',
  'Oscar',
  'Priya',
  'Arjun',
  'Mei',
  'Wei',
  'Aisha',
  'Omar',
  'Sofia',
  'Mateo',
  'Yuki',
  'Hiro',
  'Fatima',
  'Ali',
  'Hannah',
  'Daniel',
  'Sarah',
  'Michael',
  'Jessica',
  'David',
  'Emma',
  'Ryan',
] as const;

export const LAST_NAMES = [
  'Smith',
  'Jones',
  'Williams',
  'Brown',
  'Wilson',
  'Taylor',
  'Nguyen',
  'Johnson',
  'Martin',
  'White',
  'Anderson',
  'Walker',
  'Thompson',
  'Harris',
  'Lee',
  'Ryan',
  'Robinson',
  'Kelly',
  'King',
  'Davis',
  'Wright',
  'Evans',
  'Roberts',
  'Green',
  'Hall',
  'Wood',
  'Jackson',
  'Clarke',
  'Patel',
  'Khan',
  'Garcia',
  'Martinez',
  'Rodriguez',
  'Chen',
  'Wang',
  'Li',
  'Singh',
  'Kumar',
  "O'Brien",
  'MacDonald',
  'Murphy',
  'Campbell',
  'Stewart',
  'Morris',
  'Cooper',
  'Ward',
  'Baker',
  'Hughes',
  'Edwards',
  'Turner',
] as const;

export const STREET_NAMES = [
  'George',
  'King',
  'Queen',
  'Victoria',
  'Church',
  'High',
  'Park',
  'Station',
  'Bridge',
  'Mill',
  'Elm',
  'Oak',
  'Maple',
  'Cedar',
  'Hill',
  'Lake',
  'River',
  'Forest',
  'Market',
  'Albert',
] as const;

/** Example-only mail domains (RFC 2606), so no real address is ever generated. */
export const EMAIL_DOMAINS = ['example.com', 'example.net', 'example.org'] as const;

export const GENDERS: readonly (readonly [string, number])[] = [
  ['Female', 48],
  ['Male', 48],
  ['Unspecified', 4],
];

export type BillingPeriod = 'weekly' | 'fortnightly' | 'monthly';

export interface MembershipPlan {
  readonly id: number;
  readonly name: string;
  readonly type: 'Direct Debit' | 'Paid in Full';
  readonly period?: BillingPeriod;
  /** Amount per billing period (direct debit) or per term (paid in full). */
  readonly amount: number;
  readonly termMonths?: number;
  readonly minimumTermMonths?: number;
  readonly weight: number;
}

export const MEMBERSHIP_PLANS: readonly MembershipPlan[] = [
  { id: 101, name: 'Direct Debit Weekly', type: 'Direct Debit', period: 'weekly', amount: 14.95, weight: 20 },
  {
    id: 102,
    name: 'Direct Debit Fortnightly',
    type: 'Direct Debit',
    period: 'fortnightly',
    amount: 29.9,
    minimumTermMonths: 12,
    weight: 35,
  },
  {
    id: 103,
    name: 'Direct Debit Monthly',
    type: 'Direct Debit',
    period: 'monthly',
    amount: 64.95,
    weight: 15,
  },
  {
    id: 104,
    name: 'Student Fortnightly',
    type: 'Direct Debit',
    period: 'fortnightly',
    amount: 24.9,
    weight: 10,
  },
  { id: 201, name: 'Paid in Full 12 Months', type: 'Paid in Full', amount: 649, termMonths: 12, weight: 15 },
  { id: 202, name: 'Paid in Full 3 Months', type: 'Paid in Full', amount: 189, termMonths: 3, weight: 5 },
];

export const JOINING_FEE = 49;
export const DISHONOUR_FEE = 12.5;

export const PAYMENT_PURPOSES = {
  membership: { Id: 1, Name: 'Membership' },
  joining: { Id: 2, Name: 'Joining Fee' },
  arrears: { Id: 3, Name: 'Arrears' },
  dishonourFee: { Id: 4, Name: 'Dishonour Fee' },
  casual: { Id: 5, Name: 'Casual Visit' },
  renewal: { Id: 6, Name: 'Paid in Full Renewal' },
} as const;

export const DOORS: readonly (readonly [door: string, scanSource: string, weight: number])[] = [
  ['Main Entrance', 'Turnstile', 70],
  ['Main Entrance', 'Front Desk', 15],
  ['Car Park Entrance', 'Door Reader', 10],
  ['Studio Door', 'Mobile App', 5],
];

export const PROSPECT_CONTACT_METHODS = [
  { Id: 1, Name: 'Phone' },
  { Id: 2, Name: 'Email' },
  { Id: 3, Name: 'Walk-in' },
  { Id: 4, Name: 'Web Form' },
  { Id: 5, Name: 'Social Media' },
] as const;

export const PROSPECT_SOURCES = [
  { Id: 1, Name: 'Google' },
  { Id: 2, Name: 'Facebook' },
  { Id: 3, Name: 'Instagram' },
  { Id: 4, Name: 'Member Referral' },
  { Id: 5, Name: 'Walk By' },
  { Id: 6, Name: 'Corporate Partner' },
] as const;

export const PROSPECT_SOURCE_PAGES = ['/join', '/free-trial', '/classes', '/contact', null] as const;

export interface ClassSlot {
  readonly classId: number;
  readonly name: string;
  /** Local start time in minutes after midnight. */
  readonly startMinute: number;
  readonly durationMin: number;
  readonly capacity: number;
}

export const CLASS_TIMETABLE: readonly ClassSlot[] = [
  { classId: 11, name: 'HIIT', startMinute: 6 * 60, durationMin: 45, capacity: 25 },
  { classId: 12, name: 'Spin', startMinute: 9 * 60 + 30, durationMin: 45, capacity: 20 },
  { classId: 13, name: 'Yoga', startMinute: 12 * 60 + 15, durationMin: 60, capacity: 30 },
  { classId: 14, name: 'Body Pump', startMinute: 18 * 60, durationMin: 60, capacity: 30 },
  { classId: 15, name: 'Pilates', startMinute: 19 * 60 + 15, durationMin: 45, capacity: 20 },
];

export const INSTRUCTORS = [
  'Alex Rivera',
  'Sam Carter',
  'Jordan Blake',
  'Taylor Quinn',
  'Casey Morgan',
] as const;
