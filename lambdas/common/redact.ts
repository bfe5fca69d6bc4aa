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
 * Matching is case-sensitive (credentials are); both hex cases of URL encoding are variants.
 * Secrets shorter than MIN_SECRET_CHARS are not searched for (they would cut ordinary words).
 */

const AUTH_VALUE = /\b(Basic|Bearer)\s+[A-Za-z0-9+/=._~%-]+/gi;
const API_KEY_HEADER = /(x-api-(?:key|token)["']?\s*[:=]\s*["']?)[^"',\s}]+/gi;
const MARK = '[redacted]';

/** Credentials shorter than this are not searched for in text. */
export const MIN_SECRET_CHARS = 4;

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

/** A pattern matching every variant of the secrets (longest first), or undefined for none. */
export function secretPattern(secrets: readonly (string | undefined)[]): RegExp | undefined {
  const variants = new Set<string>();
  for (const secret of secrets) if (secret) for (const v of secretVariants(secret)) variants.add(v);
  if (variants.size === 0) return undefined;
  const sorted = [...variants].sort((a, b) => b.length - a.length);
  return new RegExp(sorted.map(escapeRegExp).join('|'), 'g');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  const out = text.replace(AUTH_VALUE, `$1 ${MARK}`).replace(API_KEY_HEADER, `$1${MARK}`);
  const pattern = secretPattern(secrets);
  return pattern ? out.replace(pattern, MARK) : out;
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

/** How many credentials the process keeps for `redactKnownSecrets` (most recently used first). */
export const KNOWN_SECRETS_LIMIT = 512;

const known = new Map<string, true>();
let knownMatcher: SecretMatcher | undefined;

/**
 * Remembers credentials this process uses, for the sinks' last pass (`redactKnownSecrets`): the
 * most recent KNOWN_SECRETS_LIMIT are kept (a Lambda container serves a few clubs at a time).
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

/** `text` without any credential this process remembers, in any of its forms. Never throws. */
export function redactKnownSecrets(text: string): string {
  if (known.size === 0) return text;
  if (!knownMatcher) {
    knownMatcher = new SecretMatcher();
    for (const secret of known.keys()) for (const v of secretVariants(secret)) knownMatcher.add(v);
  }
  try {
    return knownMatcher.redact(text);
  } catch {
    return MARK;
  }
}
