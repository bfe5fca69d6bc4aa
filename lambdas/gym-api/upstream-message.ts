/**
 * Turning an upstream response body into something safe to put in an error message: the body's
 * `Message` when it is JSON, otherwise a short excerpt; always decoded, redacted and truncated.
 */
import { decodeEscapes, MAX_DECODE_LEVELS, redact, scrubTokenLike } from '../common/redact';
import type { AuthFailureReason } from './errors';

const MAX_EXCERPT_CHARS = 160;

/**
 * A short, redacted, single-line excerpt of a response body (its `Message`/`message` if JSON):
 * the request's credentials in any form removed (common/redact.ts), and anything shaped like a key
 * or a token too (an echo of a credential the caller does not hold).
 *
 * The excerpt is what the body says, not how it wrote it: the raw text of a body whose message is
 * not a top-level string (a nested error, HTML, plain text) is shown decoded (JSON escapes,
 * percent-encoding, HTML character references, level by level), each level redacted before the
 * next is decoded, so no escape hides a credential from the redaction or from the token scrub.
 */
export function upstreamExcerpt(body: string, secrets: readonly (string | undefined)[]): string {
  let text = redact(messageOf(body) ?? body, secrets);
  for (let level = 0; level < MAX_DECODE_LEVELS; level++) {
    const decoded = decodeEscapes(text);
    if (decoded === text) break;
    text = redact(decoded, secrets);
  }
  // Redacted before and after folding whitespace: an echo split across lines is caught either way.
  const oneLine = scrubTokenLike(redact(text.replace(/\s+/g, ' ').trim(), secrets));
  if (oneLine.length <= MAX_EXCERPT_CHARS) return oneLine;
  return oneLine.slice(0, MAX_EXCERPT_CHARS) + '…';
}

function messageOf(body: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object') {
      const record = parsed as Record<string, unknown>;
      for (const key of ['Message', 'message', 'error_description', 'error']) {
        const value = record[key];
        if (typeof value === 'string') return value;
      }
    }
  } catch {
    // not JSON: the caller uses the raw excerpt
  }
  return undefined;
}

/** Which credential a 401/403 message blames, when it says so ("Invalid API key", "expired token"). */
export function authReasonFromMessage(message: string): AuthFailureReason | undefined {
  if (/api[\s_-]?key|x-api-(key|token)/i.test(message)) return 'apiKey';
  if (/token/i.test(message)) return 'token';
  if (/credential|password|user ?name|basic/i.test(message)) return 'credentials';
  return undefined;
}

/** The media types a message names; any other is "another type" (the header is upstream text). */
const KNOWN_MEDIA_TYPE =
  /^(?:application\/(?:json|problem\+json|xml|problem\+xml|javascript|octet-stream|x-www-form-urlencoded)|text\/(?:html|plain|xml|css|csv|javascript))$/i;

/**
 * A short description of a response whose body is not what was expected (HTML, text, ...). The
 * Content-Type is the upstream's text too: named only when it is a common media type, so nothing
 * it carries (an echoed credential) reaches a message.
 */
export function describeBody(body: string, contentType: string | null): string {
  if (body.length === 0) return 'an empty body';
  const type = contentType?.split(';')[0]?.trim();
  const kind = !contentType
    ? 'no content type'
    : type && KNOWN_MEDIA_TYPE.test(type)
      ? type.toLowerCase()
      : 'another content type';
  return `${body.length} chars of ${kind}`;
}
