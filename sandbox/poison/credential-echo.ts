/**
 * Credentials echoed back (poison mode's `echoCredentials`): what a careless upstream sends, the
 * secret in one of the forms a redactor must recognise, written in one of the escapes a JSON
 * string may use (or a URL or an HTML page), in
 * - an error body: a JSON `Message`, a .NET-style exception body, plain text or an HTML page;
 * - a page of records (a 200): a new field, a key or a nested value of a record, or a parameter of
 *   the page's `href` or `next`;
 * - a token response (a 200): its `TokenType`, or a field of its own.
 *
 * Escapes (issue 32): none, every UTF-16 unit as `\u` in lower or upper hex, some units escaped
 * and others not, .NET's default (`+ < > & '` and everything beyond ASCII), `/` as `\/`, surrogate
 * pairs escaped around it, every byte percent-encoded, every character an HTML reference. Each
 * reads as the secret once the JSON is parsed (and decoded); the raw body need not contain it.
 */
import type { SeededRandom } from '../sandbox-random';

/** The credentials a request carried (or the sandbox knows): each is echoed only when present. */
export interface EchoSecrets {
  readonly username?: string;
  readonly password?: string;
  readonly apiKey?: string;
  readonly bearerToken?: string;
}

export const SECRET_FORMS = [
  'basic-header',
  'basic-value',
  'username-password',
  'username',
  'password',
  'url-encoded',
  'json-escaped',
  'api-key',
  'bearer-token',
  'bearer-signature',
] as const;
export type SecretForm = (typeof SECRET_FORMS)[number];

export const PLACEMENTS = ['message', 'exception', 'plain-text', 'html'] as const;
export type Placement = (typeof PLACEMENTS)[number];

/** Where in a 200 page an echo goes. */
export const PAGE_PLACES = ['record-field', 'record-key', 'record-nested', 'href', 'next'] as const;
/** Where in a token response an echo goes. */
export const TOKEN_PLACES = ['token-type', 'token-field'] as const;

export const ESCAPES = [
  'none',
  'all-lower',
  'all-upper',
  'some',
  'dotnet',
  'slash',
  'surrogates',
  'percent',
  'html-refs',
] as const;
export type Escape = (typeof ESCAPES)[number];

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const hex4 = (unit: number, upper: boolean) => {
  const h = unit.toString(16).padStart(4, '0');
  return `\\u${upper ? h.toUpperCase() : h}`;
};
/** What JSON.stringify writes for one UTF-16 unit inside a string (the unit, or its escape). */
const minimal = (unit: string) => JSON.stringify(unit).slice(1, -1);

/** `\u0061\u0062...`: every character escaped, as a JSON string may legally carry it. */
export const jsonEscapeAll = (text: string) =>
  [...text].map((c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`).join('');

/**
 * `secret` as the content of a JSON string literal (no quotes), written with `style`; plain ASCII
 * with no `"` or `\` in it unless JSON needs them escaped. `rng` draws the units `some` escapes.
 */
export function escapeSecret(secret: string, style: Escape, rng: SeededRandom): string {
  const units = secret.split('');
  switch (style) {
    case 'none':
      return minimal(secret);
    case 'all-lower':
    case 'all-upper':
      return units.map((u) => hex4(u.charCodeAt(0), style === 'all-upper')).join('');
    case 'some':
      return units
        .map((u) => (rng.chance(0.5) ? hex4(u.charCodeAt(0), rng.chance(0.5)) : minimal(u)))
        .join('');
    case 'dotnet':
      return units
        .map((u) => (/[+<>&'`]/.test(u) || u.charCodeAt(0) > 0x7e ? hex4(u.charCodeAt(0), true) : minimal(u)))
        .join('');
    case 'slash':
      return units.map((u) => (u === '/' ? '\\/' : minimal(u))).join('');
    case 'surrogates':
      return `\\uD83D\\uDE00${minimal(secret)}\\ud83d\\ude00`;
    case 'percent':
      return [...Buffer.from(secret, 'utf8')]
        .map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`)
        .join('');
    case 'html-refs':
      return [...secret].map((c) => `&#x${(c.codePointAt(0) ?? 0).toString(16)};`).join('');
  }
}

/** The secret text of a form, or undefined when the request did not carry what it needs. */
function secretText(form: SecretForm, s: EchoSecrets): string | undefined {
  const login =
    s.username !== undefined && s.password !== undefined ? `${s.username}:${s.password}` : undefined;
  switch (form) {
    case 'basic-header':
      return login && `Basic ${b64(login)}`;
    case 'basic-value':
      return login && b64(login);
    case 'username-password':
    case 'json-escaped':
      return login;
    case 'username':
      return s.username;
    case 'password':
      return s.password;
    case 'url-encoded':
      return (
        login &&
        `client_id=${encodeURIComponent(s.username ?? '')}&client_secret=${encodeURIComponent(s.password ?? '')}&credentials=${encodeURIComponent(login)}`
      );
    case 'api-key':
      return s.apiKey;
    case 'bearer-token':
      return s.bearerToken;
    case 'bearer-signature':
      return s.bearerToken?.split('.')[2];
  }
}

/** One echo drawn: the secret written with its escape, and `form/.../escape` for the log. */
interface DrawnEcho {
  readonly text: string;
  readonly form: SecretForm;
  readonly escape: Escape;
}

function drawEcho(
  rng: SeededRandom,
  secrets: EchoSecrets,
  only?: readonly SecretForm[],
): DrawnEcho | undefined {
  const forms = (only ?? SECRET_FORMS).filter((f) => secretText(f, secrets) !== undefined);
  if (forms.length === 0) return undefined;
  const form = rng.pick(forms);
  // json-escaped is the form whose every character is a \u escape, whatever else is drawn.
  const style: Escape = form === 'json-escaped' ? 'all-lower' : rng.pick(ESCAPES);
  return { form, escape: style, text: escapeSecret(secretText(form, secrets) as string, style, rng) };
}

export interface EchoResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  readonly headers: Record<string, string>;
  /** `form/placement/escape`, for the log (never the secret itself). */
  readonly variant: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';

const REASONS: Record<number, string> = {
  400: 'The request is invalid.',
  401: 'Authorization has been denied for this request.',
  500: 'An error has occurred.',
};

/** An error body of `placement` whose text holds `secret` (already written as a JSON string's content). */
function body(placement: Placement, status: number, secret: string) {
  const reason = REASONS[status] ?? 'Error';
  switch (placement) {
    case 'message':
      return { contentType: JSON_TYPE, body: `{"Message":"${reason} Credentials: ${secret}"}` };
    case 'exception':
      return {
        contentType: JSON_TYPE,
        body: `{"Message":${JSON.stringify(reason)},"ExceptionMessage":"Login failed for ${secret}","ExceptionType":"System.UnauthorizedAccessException","StackTrace":"   at Gym.Reporting.Auth.Validate(String credentials)"}`,
      };
    case 'plain-text':
      return {
        contentType: 'text/plain; charset=utf-8',
        body: `${status} ${reason} The credentials ${secret} were not accepted.`,
      };
    case 'html':
      return {
        contentType: 'text/html; charset=utf-8',
        body: `<html><head><title>${status}</title></head><body><h1>${reason}</h1><pre>auth=${secret}</pre></body></html>`,
      };
  }
}

/**
 * An error response echoing one of the secrets the request carried, drawn with `rng`; undefined
 * when the request carried none. Token requests get 401 or 500, data requests 400, 401 or 500.
 */
export function echoResponse(
  rng: SeededRandom,
  secrets: EchoSecrets,
  isToken: boolean,
): EchoResponse | undefined {
  const echo = drawEcho(rng, secrets);
  if (!echo) return undefined;
  const placement = rng.pick(PLACEMENTS);
  const status = rng.pick(isToken ? [401, 500] : [400, 401, 500]);
  const { contentType, body: text } = body(placement, status, echo.text);
  const challenge = isToken ? 'Basic realm="gym-api"' : 'Bearer error="invalid_token"';
  return {
    status,
    contentType,
    body: text,
    headers: status === 401 ? { 'www-authenticate': challenge } : {},
    variant: `${echo.form}/${placement}/${echo.escape}`,
  };
}

/** A rewritten 200 body and `form/place/escape` for the log. */
export interface EchoedBody {
  readonly body: string;
  readonly variant: string;
}

const LINKS = /^\{"href":"([^"\\]*)","next":"([^"\\]*)"/;

/**
 * The page `body` (`{"href":..,"next":..,"data":[..]}` as the sandbox writes it) with one secret of
 * the request echoed into it, or undefined when the request carried none. `inRecords`: a record's
 * fields may carry it (not where the whole record is its identity, as class attendance's is: a
 * record served with an echo would be another record); otherwise a link does.
 */
export function echoInPage(
  rng: SeededRandom,
  secrets: EchoSecrets,
  page: string,
  inRecords: boolean,
): EchoedBody | undefined {
  const echo = drawEcho(rng, secrets);
  const links = LINKS.exec(page);
  if (!echo || !links) return undefined;
  const hasRecord = page.startsWith('"data":[{', links[0].length + 1);
  const place = rng.pick(PAGE_PLACES.filter((p) => (inRecords && hasRecord) || !p.startsWith('record')));
  const variant = `${echo.form}/${place}/${echo.escape}`;
  if (place === 'href' || place === 'next') {
    const [, href, next] = links;
    const withEcho = (url: string | undefined) =>
      `${url ?? ''}${url?.includes('?') ? '&' : '?'}echo=${echo.text}`;
    const head = `{"href":"${place === 'href' ? withEcho(href) : href}","next":"${place === 'next' ? withEcho(next) : next}"`;
    return { body: head + page.slice(links[0].length), variant };
  }
  const field = {
    'record-field': `"Remarks":"Login failed for ${echo.text}"`,
    'record-key': `"${echo.text}":"echoed"`,
    'record-nested': `"Audit":{"Entries":[{"By":"${echo.text}"}]}`,
  }[place];
  // Into the first record: `{` then the field, and a comma unless the record is empty.
  const at = links[0].length + ',"data":[{'.length;
  const comma = page[at] === '}' ? '' : ',';
  return { body: `${page.slice(0, at)}${field}${comma}${page.slice(at)}`, variant };
}

/** The token response `body` with the integrator login echoed into it (undefined: none known). */
export function echoInToken(rng: SeededRandom, secrets: EchoSecrets, token: string): EchoedBody | undefined {
  const echo = drawEcho(rng, {
    ...(secrets.username === undefined ? {} : { username: secrets.username }),
    ...(secrets.password === undefined ? {} : { password: secrets.password }),
  });
  if (!echo) return undefined;
  const place = rng.pick(TOKEN_PLACES);
  const variant = `${echo.form}/${place}/${echo.escape}`;
  if (place === 'token-type')
    return { body: token.replace('"TokenType":"Bearer"', `"TokenType":"Bearer ${echo.text}"`), variant };
  return { body: `{"Scope":"read for ${echo.text}",${token.slice(1)}`, variant };
}
