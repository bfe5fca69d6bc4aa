/**
 * Keeping credentials out of every text the bridge writes (logs, error messages, `lastError`,
 * `status`, events, CLI output), whatever form the upstream echoes them in.
 *
 * Two layers:
 * - `redact(text, secrets)`: at the source, where the caller knows the credentials of the request
 *   (the API client, the token provider): each secret in every form it can come back in
 *   (`secretVariants`: as is, JSON-escaped, URL-encoded, base64 with and without padding, base64url,
 *   HTML-escaped, a JWT's segments), anything shaped like an Authorization header value or an
 *   `x-api-key` header, and (`scrubTokenLike`) long runs that look like keys or tokens.
 * - `redactKnownSecrets(text)`: at the sinks (the logger, cursor errors, CLI output), every
 *   credential this process has used lately (`rememberSecrets`, called by the client and the token
 *   provider), so a text that escaped the first layer is still cleaned.
 *
 * Both decide on what a text says, not on one way of writing it: a text that holds escapes
 * (`decodeEscapes`: JSON's `\u006b`, `\/`, `\"`; percent-encoding; HTML character references) is
 * also read decoded, up to MAX_DECODE_LEVELS deep, and when a credential shows only there, the
 * decoded text is what comes out, redacted (`redactDecoded`). Parsed JSON is decided on its parsed
 * strings (gym-api/credential-scrubber.ts).
 *
 * Matching is case-sensitive (credentials are); both hex cases of URL encoding are variants.
 * Secrets shorter than MIN_SECRET_CHARS are not searched for (they would cut ordinary words).
 */

const AUTH_VALUE = /\b(Basic|Bearer)\s+[A-Za-z0-9+/=._~%-]+/gi;
const API_KEY_HEADER = /(x-api-(?:key|token)["']?\s*[:=]\s*["']?)[^"',\s}]+/gi;
const MARK = '[redacted]';

/** Credentials shorter than this are not searched for in text. */
export const MIN_SECRET_CHARS = 4;

/** How many times a text is decoded in turn (an escape inside a percent-encoding, ...). */
export const MAX_DECODE_LEVELS = 3;

/** An escape `decodeEscapes` reads (a `%` or `&` of ordinary text is none). */
export const ESCAPE_SEQUENCE = /\\[u"\\/bfnrt]|%[0-9a-fA-F]{2}|&(?:#|amp;|lt;|gt;|quot;|apos;)/;
const JSON_ESCAPE = /\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g;
const JSON_SIMPLE: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};
const PERCENT_RUN = /(?:%[0-9a-fA-F]{2})+/g;
const CHAR_REFERENCE = /&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|(amp|lt|gt|quot|apos));?/g;
const NAMED_REFERENCE: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** True when `text` holds an escape `decodeEscapes` reads (`\u`, `\/`, `%6B`, `&#107;`, ...). */
export function mayHoldEscapes(text: string): boolean {
  return ESCAPE_SEQUENCE.test(text);
}

/**
 * `text` decoded one level: JSON escapes (`\u006b` in either hex case, one UTF-16 unit each, so a
 * surrogate pair written as two escapes decodes to its character; `\/`, `\"`, `\\`, `\n`, ...),
 * then runs of percent-encoding (as UTF-8), then HTML character references (`&#107;`, `&#x6B;`,
 * `&amp;`). What is not a well-formed escape is left as it is. Never throws.
 */
export function decodeEscapes(text: string): string {
  let out = text;
  if (out.includes('\\')) {
    out = out.replace(JSON_ESCAPE, (_m, hex: string | undefined, simple: string | undefined) =>
      hex === undefined ? (JSON_SIMPLE[simple ?? ''] ?? '') : String.fromCharCode(Number.parseInt(hex, 16)),
    );
  }
  if (out.includes('%')) {
    out = out.replace(PERCENT_RUN, (run) => Buffer.from(run.replaceAll('%', ''), 'hex').toString('utf8'));
  }
  if (out.includes('&')) {
    out = out.replace(CHAR_REFERENCE, (whole, hex: string | undefined, dec: string | undefined, name) => {
      if (name) return NAMED_REFERENCE[name as string] ?? whole;
      const code = hex === undefined ? Number(dec) : Number.parseInt(hex, 16);
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    });
  }
  return out;
}

/**
 * `text` with `replace` applied (it replaces credentials), and, when the text holds escapes, with
 * `replace` applied to what it decodes to, level by level: when a credential shows only once
 * decoded, the decoded text comes out, redacted. A text with nothing to replace at any level comes
 * out as it came in.
 */
export function redactDecoded(text: string, replace: (text: string) => string): string {
  let out = replace(text);
  let probe = out;
  for (let level = 0; level < MAX_DECODE_LEVELS && mayHoldEscapes(probe); level++) {
    const decoded = decodeEscapes(probe);
    if (decoded === probe) break;
    const cleaned = replace(decoded);
    if (cleaned !== decoded) out = cleaned;
    probe = cleaned;
  }
  return out;
}

/** `text` decoded as far as it goes (at most MAX_DECODE_LEVELS levels). */
export function decodeFully(text: string): string {
  let out = text;
  for (let level = 0; level < MAX_DECODE_LEVELS && mayHoldEscapes(out); level++) {
    const decoded = decodeEscapes(out);
    if (decoded === out) break;
    out = decoded;
  }
  return out;
}

/** Every form in which `secret` can reappear in a text an upstream writes. */
export function secretVariants(secret: string): string[] {
  if (secret.length < MIN_SECRET_CHARS) return [];
  const out = new Set<string>([secret]);
  const add = (v: string | undefined) => {
    if (v && v.length >= MIN_SECRET_CHARS) out.add(v);
  };
  try {
    add(JSON.stringify(secret).slice(1, -1));
  } catch {
    // a string always stringifies; kept for safety
  }
  const uri = safeUriEncode(secret);
  add(uri);
  add(uri?.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()));
  add(uri?.replace(/%20/g, '+'));
  const utf8 = Buffer.from(secret, 'utf8');
  const base64 = utf8.toString('base64');
  add(base64);
  add(base64.replace(/=+$/, ''));
  add(utf8.toString('base64url'));
  add(
    secret.replace(
      /[&<>"']/g,
      (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[c]};`,
    ),
  );
  // A JWT (or any dotted token): each long segment on its own, the signature above all.
  if (secret.includes('.')) for (const part of secret.split('.')) if (part.length >= 16) add(part);
  return [...out];
}

function safeUriEncode(text: string): string | undefined {
  try {
    return encodeURIComponent(text);
  } catch {
    return undefined; // a lone surrogate
  }
}

/** The secrets of an HTTP Basic login, as they can reappear: password, `user:pass`, their encodings. */
export function basicLoginSecrets(username: string, password: string): string[] {
  return [password, `${username}:${password}`];
}

const TOKEN_LIKE = /[A-Za-z0-9+/_-]{32,}={0,2}/g;
const JWT_LIKE = /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*)?/g;

/**
 * Replaces runs that look like keys or tokens (a JWT; 32+ characters of the base64/url alphabet with
 * both letters and digits): for upstream text, where a credential the bridge does not hold (another
 * club's key, a token it never saw) may be echoed.
 */
export function scrubTokenLike(text: string): string {
  return text
    .replace(JWT_LIKE, MARK)
    .replace(TOKEN_LIKE, (run) => (/\d/.test(run) && /[A-Za-z]/.test(run) ? MARK : run));
}

/** Every variant of the secrets, longest first. */
export function allVariants(secrets: readonly (string | undefined)[]): string[] {
  const variants = new Set<string>();
  for (const secret of secrets) if (secret) for (const v of secretVariants(secret)) variants.add(v);
  return [...variants].sort((a, b) => b.length - a.length);
}

/** A pattern matching every variant of the secrets (longest first), or undefined for none. */
export function secretPattern(secrets: readonly (string | undefined)[]): RegExp | undefined {
  return variantPattern(allVariants(secrets));
}

/** A global pattern matching any of `variants` (in their order), or undefined for none. */
export function variantPattern(variants: readonly string[]): RegExp | undefined {
  if (variants.length === 0) return undefined;
  return new RegExp(variants.map(escapeRegExp).join('|'), 'g');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/**
 * `text` without the secrets in any of their forms, also where they show only once the text is
 * decoded (`redactDecoded`), and without Authorization or `x-api-key` header values.
 */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  const pattern = secretPattern(secrets);
  return redactDecoded(text, (t) => {
    const out = t.replace(AUTH_VALUE, `$1 ${MARK}`).replace(API_KEY_HEADER, `$1${MARK}`);
    return pattern ? out.replace(pattern, MARK) : out;
  });
}

/**
 * Finds any of many strings in a text without a regular expression to rebuild: an index by their
 * first MIN_SECRET_CHARS characters, then exact checks. Adding a string is cheap, which suits the
 * process-wide set that changes with every club a container polls.
 */
class SecretMatcher {
  readonly #byGram = new Map<string, string[]>();

  add(variant: string): void {
    const gram = variant.slice(0, MIN_SECRET_CHARS);
    const list = this.#byGram.get(gram);
    if (!list) this.#byGram.set(gram, [variant]);
    else if (!list.includes(variant)) {
      list.push(variant);
      // Longest first: a secret that contains another is replaced whole.
      list.sort((a, b) => b.length - a.length);
    }
  }

  redact(text: string): string {
    if (this.#byGram.size === 0 || text.length < MIN_SECRET_CHARS) return text;
    let out = '';
    let last = 0;
    for (let i = 0; i + MIN_SECRET_CHARS <= text.length; ) {
      const candidates = this.#byGram.get(text.slice(i, i + MIN_SECRET_CHARS));
      const hit = candidates?.find((v) => text.startsWith(v, i));
      if (hit) {
        out += text.slice(last, i) + MARK;
        i += hit.length;
        last = i;
      } else {
        i++;
      }
    }
    return last === 0 ? text : out + text.slice(last);
  }
}

/**
 * How many credentials the process keeps for `redactKnownSecrets` (most recently used first): a
 * webhook function signs for every endpoint of a fleet (1,000 and more, each a key, a previous key
 * during a rotation, static header values); under that, using them in turn evicts one at each use
 * and the matcher is rebuilt at every line logged.
 */
export const KNOWN_SECRETS_LIMIT = 4096;

const known = new Map<string, true>();
let knownMatcher: SecretMatcher | undefined;

/**
 * Remembers credentials this process uses, for the sinks' last pass (`redactKnownSecrets`): the
 * most recent KNOWN_SECRETS_LIMIT are kept (a poll container serves a few clubs at a time, a
 * webhook container signs for every endpoint).
 */
export function rememberSecrets(...secrets: readonly (string | undefined)[]): void {
  let evicted = false;
  for (const s of secrets) {
    if (!s || s.length < MIN_SECRET_CHARS) continue;
    if (known.has(s)) known.delete(s);
    else if (knownMatcher) for (const v of secretVariants(s)) knownMatcher.add(v);
    known.set(s, true);
  }
  while (known.size > KNOWN_SECRETS_LIMIT) {
    known.delete(known.keys().next().value as string);
    evicted = true;
  }
  // An evicted secret leaves the matcher at its next rebuild (lazily, on the next use).
  if (evicted) knownMatcher = undefined;
}

/** Forgets every remembered credential (tests). */
export function forgetKnownSecrets(): void {
  known.clear();
  knownMatcher = undefined;
}

/**
 * `text` without any credential this process remembers, in any of its forms, also where one shows
 * only once the text is decoded (`redactDecoded`: then the text comes out decoded). Never throws.
 */
export function redactKnownSecrets(text: string): string {
  if (known.size === 0) return text;
  if (!knownMatcher) {
    knownMatcher = new SecretMatcher();
    for (const secret of known.keys()) for (const v of secretVariants(secret)) knownMatcher.add(v);
  }
  const matcher = knownMatcher;
  try {
    return redactDecoded(text, (t) => matcher.redact(t));
  } catch {
    return MARK;
  }
}
