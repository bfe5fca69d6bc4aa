/**
 * Turning an upstream response body into something safe to put in an error message: the body's
 * `Message` when it is JSON, otherwise a short excerpt; always redacted and truncated.
 */
import { redact, scrubTokenLike } from '../common/redact';
import type { AuthFailureReason } from './errors';

const MAX_EXCERPT_CHARS = 160;

/**
 * A short, redacted, single-line excerpt of a response body (its `Message`/`message` if JSON):
 * the request's credentials in any form removed (common/redact.ts), and anything shaped like a key
 * or a token too (an echo of a credential the caller does not hold).
 */
export function upstreamExcerpt(body: string, secrets: readonly (string | undefined)[]): string {
  const message = messageOf(body) ?? body;
  // Redacted before and after folding whitespace: an echo split across lines is caught either way.
  const oneLine = scrubTokenLike(redact(redact(message, secrets).replace(/\s+/g, ' ').trim(), secrets));
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

/** A short description of a response whose body is not what was expected (HTML, text, ...). */
export function describeBody(body: string, contentType: string | null): string {
  if (body.length === 0) return 'an empty body';
  const kind = contentType ? contentType.split(';')[0]?.trim() || 'unknown type' : 'no content type';
  return `${body.length} chars of ${kind}`;
}
