/**
 * What a club credential may hold, decided once: the clubs file, `clubs add`, the secrets reader
 * and the API client ask `credentialProblem` before a value goes anywhere near an HTTP header.
 *
 * - apiKey: 1 to 2048 characters, each visible ASCII (0x21-0x7E): it travels as the `x-api-key`
 *   header value, where a space is trimmed, a control character is refused by Node (and its error
 *   quotes the header value) and anything beyond ASCII is not portable.
 * - username: not empty, no ':' (HTTP Basic joins `username:password`, RFC 7617: a colon in the
 *   username would split in the wrong place), no control character (0x00-0x1F, 0x7F), no leading or
 *   trailing whitespace (a stray space copied with the value).
 * - password: not empty, no control character. A trailing newline (`echo` into a secret or a
 *   variable) is the usual one, and the reason says so.
 *
 * The reason names the field and what is wrong and where ("at its end"), never the value or any of
 * its characters other than by class (a control character is named: "line feed"). Dependency-free:
 * every part of the bridge may import it.
 */

export type CredentialField = 'username' | 'password' | 'apiKey';

/** The longest API key accepted. */
export const MAX_API_KEY_LENGTH = 2048;

const NEWLINE_HINT =
  "a trailing newline usually comes from `echo` into the secret or the variable: use printf '%s' or echo -n";

/** Why `value` cannot be used as the club credential `field`, or undefined when it can. */
export function credentialProblem(field: CredentialField, value: string): string | undefined {
  if (field === 'apiKey') return apiKeyProblem(value);
  if (value.length === 0) return `${field} is empty`;
  const control = firstIndex(value, isControl);
  if (control !== undefined) return `${field} ${describeAt(value, control)}`;
  if (field === 'password') return undefined;
  if (/^\s/.test(value)) return 'username starts with whitespace: remove it';
  if (/\s$/.test(value)) return 'username ends with whitespace: remove it';
  if (value.includes(':'))
    return "username contains ':', which HTTP Basic authentication cannot carry in a username (RFC 7617)";
  return undefined;
}

function apiKeyProblem(value: string): string | undefined {
  const rule = `an API key is 1 to ${MAX_API_KEY_LENGTH} visible ASCII characters (no spaces)`;
  if (value.length === 0) return `apiKey is empty: ${rule}`;
  const bad = firstIndex(value, (code) => code < 0x21 || code > 0x7e);
  if (bad !== undefined) return `apiKey ${describeAt(value, bad)}: ${rule}`;
  if (value.length > MAX_API_KEY_LENGTH) return `apiKey is ${value.length} characters long: ${rule}`;
  return undefined;
}

function isControl(code: number): boolean {
  return code <= 0x1f || code === 0x7f;
}

function firstIndex(value: string, test: (code: number) => boolean): number | undefined {
  for (let i = 0; i < value.length; i++) if (test(value.charCodeAt(i))) return i;
  return undefined;
}

const CONTROL_NAMES: Record<number, string> = {
  0: 'NUL',
  9: 'tab',
  10: 'line feed',
  13: 'carriage return',
  27: 'escape',
  127: 'delete',
};

/** "ends with a newline (...)", "contains a control character (tab) at its start", ... */
function describeAt(value: string, index: number): string {
  if (/^[\r\n]+$/.test(value.slice(index))) return `ends with a newline (${NEWLINE_HINT})`;
  const where = index === 0 ? 'at its start' : index === value.length - 1 ? 'at its end' : 'inside it';
  const code = value.charCodeAt(index);
  if (isControl(code)) {
    const name = CONTROL_NAMES[code] ?? `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
    return `contains a control character (${name}) ${where}`;
  }
  return `contains ${code === 0x20 ? 'a space' : 'a character outside ASCII'} ${where}`;
}
