/**
 * Error bodies that echo credentials (poison mode's `echoCredentials`): what a careless upstream
 * sends back, the secret in one of the forms a redactor must recognise, in a JSON `Message`, in a
 * .NET-style exception body, in plain text or in an HTML page.
 */
import type { SeededRandom } from '../seeded-random';

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

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** `\u0061\u0062...`: every character escaped, as a JSON string may legally carry it. */
export const jsonEscapeAll = (text: string) =>
  [...text].map((c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`).join('');

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
      return login;
    case 'password':
      return s.password;
    case 'url-encoded':
      return (
        login &&
        `client_id=${encodeURIComponent(s.username ?? '')}&client_secret=${encodeURIComponent(s.password ?? '')}&credentials=${encodeURIComponent(login)}`
      );
    case 'json-escaped':
      return login;
    case 'api-key':
      return s.apiKey;
    case 'bearer-token':
      return s.bearerToken;
    case 'bearer-signature':
      return s.bearerToken?.split('.')[2];
  }
}

export interface EchoResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  readonly headers: Record<string, string>;
  /** `form/placement`, for the log (never the secret itself). */
  readonly variant: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON string literal whose content is `prefix` then `secret` (escaped char by char when asked). */
const jsonString = (prefix: string, secret: string, escapeAll: boolean) =>
  escapeAll
    ? `"${JSON.stringify(prefix).slice(1, -1)}${jsonEscapeAll(secret)}"`
    : JSON.stringify(`${prefix}${secret}`);

const REASONS: Record<number, string> = {
  400: 'The request is invalid.',
  401: 'Authorization has been denied for this request.',
  500: 'An error has occurred.',
};

function body(placement: Placement, status: number, secret: string, escapeAll: boolean) {
  const reason = REASONS[status] ?? 'Error';
  switch (placement) {
    case 'message':
      return {
        contentType: JSON_TYPE,
        body: `{"Message":${jsonString(`${reason} Credentials: `, secret, escapeAll)}}`,
      };
    case 'exception':
      return {
        contentType: JSON_TYPE,
        body: `{"Message":${JSON.stringify(reason)},"ExceptionMessage":${jsonString('Login failed for ', secret, escapeAll)},"ExceptionType":"System.UnauthorizedAccessException","StackTrace":"   at Gym.Reporting.Auth.Validate(String credentials)"}`,
      };
    case 'plain-text':
      return {
        contentType: 'text/plain; charset=utf-8',
        body: `${status} ${reason} The credentials ${escapeAll ? jsonEscapeAll(secret) : secret} were not accepted.`,
      };
    case 'html':
      return {
        contentType: 'text/html; charset=utf-8',
        body: `<html><head><title>${status}</title></head><body><h1>${reason}</h1><pre>auth=${escapeAll ? jsonEscapeAll(secret) : secret}</pre></body></html>`,
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
  const forms = SECRET_FORMS.filter((f) => secretText(f, secrets) !== undefined);
  if (forms.length === 0) return undefined;
  const form = rng.pick(forms);
  const placement = rng.pick(PLACEMENTS);
  const status = rng.pick(isToken ? [401, 500] : [400, 401, 500]);
  const secret = secretText(form, secrets) as string;
  const { contentType, body: text } = body(placement, status, secret, form === 'json-escaped');
  const challenge = isToken ? 'Basic realm="gym-api"' : 'Bearer error="invalid_token"';
  return {
    status,
    contentType,
    body: text,
    headers: status === 401 ? { 'www-authenticate': challenge } : {},
    variant: `${form}/${placement}`,
  };
}
