/**
 * What an upstream that echoes credentials sends, for the property tests of issue 32: credentials
 * of every allowed shape, written in every escape JSON allows (full `\u` escapes in either hex
 * case, some characters escaped and others not, `\/`, `\"`, `\\`, .NET's habit of escaping `+`,
 * `<`, `>`, `&`, `'` and everything beyond ASCII, surrogate pairs escaped around the credential),
 * placed in any string of a record of any of the eight operations (a value, a new field, a key, a
 * nested value), or in the page's `href` or `next`.
 */
import fc from 'fast-check';
import type { OperationName } from '../../lambdas/gym-api/operations';

/** The credentials of one club and its integrator login, and the token the upstream issues. */
export interface EchoCredentials {
  readonly apiKey: string;
  readonly username: string;
  readonly password: string;
  readonly token: string;
}

export type CredentialName =
  | 'apiKey'
  | 'token'
  | 'username'
  | 'password'
  | 'basicValue'
  | 'basicHeader'
  | 'login';

export const CREDENTIAL_NAMES: readonly CredentialName[] = [
  'apiKey',
  'token',
  'username',
  'password',
  'basicValue',
  'basicHeader',
  'login',
];

/** The text of one credential as an upstream would echo it. */
export function credentialText(name: CredentialName, c: EchoCredentials): string {
  const login = `${c.username}:${c.password}`;
  const basic = Buffer.from(login, 'utf8').toString('base64');
  switch (name) {
    case 'basicValue':
      return basic;
    case 'basicHeader':
      return `Basic ${basic}`;
    case 'login':
      return login;
    default:
      return c[name];
  }
}

/** The credentials the leak oracle looks for (credential-leaks.ts derives their forms). */
export function namedCredentials(c: EchoCredentials): { name: string; value: string }[] {
  return CREDENTIAL_NAMES.filter((n) => n !== 'basicHeader').map((name) => ({
    name,
    value: credentialText(name, c),
  }));
}

const CORE = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
const core = fc.string({ unit: fc.constantFrom(...CORE), minLength: 10, maxLength: 16 });

/** `core` with `specials` put in at arbitrary places (never at either end when `inner`). */
function withSpecials(specials: readonly string[], inner: boolean): fc.Arbitrary<string> {
  return fc
    .tuple(core, fc.array(fc.tuple(fc.constantFrom(...specials), fc.nat()), { maxLength: 4 }))
    .map(([text, inserts]) => {
      let out = text;
      for (const [special, at] of inserts) {
        const i = inner ? 1 + (at % (out.length - 1)) : at % (out.length + 1);
        out = out.slice(0, i) + special + out.slice(i);
      }
      return out;
    });
}

/** Visible ASCII a header can carry, the characters JSON and URLs treat specially above all. */
const ASCII_SPECIALS = ['+', '/', '"', '\\', '=', '&', '<', '>', "'", '%', '.', '~', '-', '_', '!'];
/** What a password may hold besides: spaces, ':' and anything beyond ASCII. */
const TEXT_SPECIALS = [...ASCII_SPECIALS, ' ', ':', 'é', '€', 'ß', '\u{1F600}', '\u4E2D'];

export const credentialsArbitrary: fc.Arbitrary<EchoCredentials> = fc.record({
  apiKey: withSpecials(ASCII_SPECIALS, false),
  username: withSpecials(
    TEXT_SPECIALS.filter((s) => s !== ':'),
    true,
  ),
  password: withSpecials(TEXT_SPECIALS, false),
  token: withSpecials(ASCII_SPECIALS, false),
});

/** How each UTF-16 unit of a string is written inside a JSON string literal. */
export type EscapeStyle =
  | { readonly kind: 'all'; readonly upper: boolean }
  | { readonly kind: 'some'; readonly choices: readonly number[] }
  | { readonly kind: 'dotnet' }
  | { readonly kind: 'slash' }
  | { readonly kind: 'minimal' };

export const escapeStyleArbitrary: fc.Arbitrary<EscapeStyle> = fc.oneof(
  fc.record({ kind: fc.constant('all' as const), upper: fc.boolean() }),
  fc.record({
    kind: fc.constant('some' as const),
    choices: fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 40 }),
  }),
  fc.constant({ kind: 'dotnet' as const }),
  fc.constant({ kind: 'slash' as const }),
  fc.constant({ kind: 'minimal' as const }),
);

const hex4 = (unit: number, upper: boolean) => {
  const h = unit.toString(16).padStart(4, '0');
  return `\\u${upper ? h.toUpperCase() : h}`;
};

/** The JSON escape of a unit that must be escaped (`"`, `\`, controls), else undefined. */
function requiredEscape(unit: number): string | undefined {
  if (unit === 0x22) return '\\"';
  if (unit === 0x5c) return '\\\\';
  if (unit < 0x20) return hex4(unit, false);
  return undefined;
}

/**
 * `text` as the content of a JSON string literal (without its quotes), each UTF-16 unit written
 * as `style` says: JSON.parse of `"` + result + `"` is `text` again, whatever the style.
 */
export function escapeJson(text: string, style: EscapeStyle): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const ch = text[i]!;
    const required = requiredEscape(unit);
    switch (style.kind) {
      case 'all':
        out += hex4(unit, style.upper);
        break;
      case 'dotnet':
        // System.Text.Json's default encoder: HTML-sensitive characters and everything beyond ASCII.
        out += required ?? (/[+<>&'`]/.test(ch) || unit > 0x7e ? hex4(unit, true) : ch);
        break;
      case 'slash':
        out += ch === '/' ? '\\/' : (required ?? ch);
        break;
      case 'minimal':
        out += required ?? ch;
        break;
      case 'some': {
        const choice = style.choices[i % style.choices.length]!;
        if (choice === 0) out += hex4(unit, false);
        else if (choice === 1) out += hex4(unit, true);
        else if (choice === 2 && ch === '/') out += '\\/';
        else out += required ?? ch;
        break;
      }
    }
  }
  return out;
}

/** What surrounds the credential in its string: text, surrogate pairs escaped or not, nothing. */
export const surroundArbitrary: fc.Arbitrary<string> = fc.constantFrom(
  '',
  'key=',
  ' ',
  '\\uD83D\\uDE00',
  '\\ud83d\\ude00',
  '\u{1F600}',
  'x\\u0020',
  '\\/',
  '\\uD83D',
  'Login failed for ',
);

/** Where in a page the credential goes. */
export type Placement = 'value' | 'extra' | 'key' | 'nested' | 'href' | 'next';
export const PLACEMENTS: readonly Placement[] = ['value', 'extra', 'key', 'nested', 'href', 'next'];

/** One echo: which credential, written how, where, between what. */
export interface Echo {
  readonly credential: CredentialName;
  readonly style: EscapeStyle;
  readonly placement: Placement;
  readonly before: string;
  readonly after: string;
}

export const echoArbitrary: fc.Arbitrary<Echo> = fc.record({
  credential: fc.constantFrom(...CREDENTIAL_NAMES),
  style: escapeStyleArbitrary,
  placement: fc.constantFrom(...PLACEMENTS),
  before: surroundArbitrary,
  after: surroundArbitrary,
});

/** The content of a JSON string literal holding the echo. */
export function echoLiteral(echo: Echo, c: EchoCredentials): string {
  return `${echo.before}${escapeJson(credentialText(echo.credential, c), echo.style)}${echo.after}`;
}

const LOCAL = (isoUtcMs: number, offsetHours: number) =>
  new Date(isoUtcMs + offsetHours * 3_600_000).toISOString().slice(0, 19);
const UTC = (ms: number) => new Date(ms).toISOString().slice(0, 19);

/**
 * A valid record of each operation whose identity carries `id` (digits), `atMs` in UTC; local
 * times for a club 10 hours ahead of UTC (Australia/Brisbane: no DST).
 */
export const RECORD_TEMPLATES: Record<OperationName, (id: number, atMs: number) => Record<string, unknown>> =
  {
    members: (id, at) => ({
      Number: `M${id}`,
      FirstName: 'Ada',
      Status: 'Active',
      LastUpdatedUtcDateTime: UTC(at),
      Contact: { Email: 'ada@example.com', OptOutEmail: false, OptOutSms: false },
      Membership: { Id: 3, Name: 'Gold', StartDate: LOCAL(at, 10), Type: 'DD' },
    }),
    prospects: (id, at) => ({
      Number: `P${id}`,
      FirstName: 'Bo',
      Status: 'Enquiry',
      CreatedDateUtc: UTC(at),
    }),
    visits: (id, at) => ({
      MemberNumber: `M${id}`,
      Door: 'Main',
      ScanSource: 'Kiosk',
      VisitDateTime: LOCAL(at, 10),
    }),
    paymentHistory: (id, at) => ({
      Id: 900000 + id,
      Number: `M${id}`,
      PaymentDate: LOCAL(at, 10),
      PaymentType: 'DD',
      Response: 'Approved',
      FeeBreakdown: [{ SubscriptionFee: 10 }],
    }),
    posTransactions: (id, at) => ({
      PosTransactionId: 800000 + id,
      TransactionDate: LOCAL(at, 10),
      TransactionType: 'Sale',
      TotalExTax: 10,
      TotalIncTax: 11,
      Till: 'Front',
      Items: [{ ItemId: 1, ProductName: 'Water', Quantity: 1, PriceIncTax: 11 }],
    }),
    disbursements: (id, at) => ({
      DisbursementDate: LOCAL(at, 10),
      TransactionDate: LOCAL(at, 10),
      Amount: 12.5,
      MemberNumber: `M${id}`,
      Department: 'Memberships',
      PaymentType: 'DD',
    }),
    debtCollection: (id, at) => ({
      Amount: 99,
      DebtCollectionDate: LOCAL(at, 10),
      MemberNumber: `M${id}`,
      FirstName: 'Cy',
    }),
    classAttendance: (id, at) => ({
      MemberNumber: `M${id}`,
      ClassName: 'Spin',
      ClassDateTime: LOCAL(at, 10),
      Instructor: 'Dee',
    }),
  };

const MARK = 'QQ-ECHO-QQ';

/**
 * The JSON text of a page of `records` whose `echo.placement` carries the echo, written as raw
 * JSON text (the escapes survive only so). `index` picks the record and the string field.
 */
export function pageWithEcho(
  records: readonly Record<string, unknown>[],
  echo: Echo,
  c: EchoCredentials,
  links: { readonly href: string; readonly next: string },
  index = 0,
): string {
  const data = records.map((r) => structuredClone(r));
  const target = data[index % data.length] ?? {};
  let href = links.href;
  let next = links.next;
  switch (echo.placement) {
    case 'value': {
      const fields = Object.keys(target).filter((k) => typeof target[k] === 'string');
      const field = fields[(index * 7) % Math.max(1, fields.length)] ?? 'Note';
      target[field] = `${String(target[field] ?? '')} ${MARK}`;
      break;
    }
    case 'extra':
      target.Remarks = MARK;
      break;
    case 'key':
      target[MARK] = 'echoed';
      break;
    case 'nested':
      target.Extra = { Audit: [{ by: MARK }] };
      break;
    case 'href':
      href = `${href}&echo=${MARK}`;
      break;
    case 'next':
      next = `${next}&echo=${MARK}`;
      break;
  }
  const text = JSON.stringify({ href, next, data });
  return text.split(MARK).join(echoLiteral(echo, c));
}
