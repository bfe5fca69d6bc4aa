/**
 * Last line of defence for text that may reach a log or an error message: removes credentials
 * that the caller knows about, and anything shaped like an Authorization header value.
 */

const AUTH_VALUE = /\b(Basic|Bearer)\s+[A-Za-z0-9+/=._~-]+/gi;
const API_KEY_HEADER = /(x-api-(?:key|token)["']?\s*[:=]\s*["']?)[^"',\s}]+/gi;

export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text.replace(AUTH_VALUE, '$1 [redacted]').replace(API_KEY_HEADER, '$1[redacted]');
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return out;
}
