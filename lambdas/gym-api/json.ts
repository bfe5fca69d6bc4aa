/**
 * JSON parsing that keeps int64 precision.
 *
 * `JSON.parse` turns 9007199254740993 into 9007199254740992. Node 20 has no reviver source access,
 * so integer literals longer than 15 digits (the largest always-safe length) are rewritten as JSON
 * strings before parsing. The scan tracks string state so digits inside strings are never touched,
 * and it only runs when the text contains a run of 16+ digits at all, so the common case costs a
 * single regex test on top of `JSON.parse`.
 *
 * Consequence: any integer of 16+ digits arrives as a decimal string. Schemas for int64 ids accept
 * both forms and always output strings; a non-id number field that receives such a value fails
 * validation, which is the right outcome for a value no JavaScript number can hold exactly.
 */

const LONG_DIGIT_RUN = /\d{16}/;

export function parseJsonPreservingInt64(text: string): unknown {
  if (!LONG_DIGIT_RUN.test(text)) return JSON.parse(text);
  return JSON.parse(quoteLongIntegers(text));
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Where the string that opens before `from` ends: just past its closing quote (or the text's end).
 * A backslash escapes the character after it. `backslash` is the index of the first backslash at
 * or after `from` (-1: none), found once and carried, so a text without escapes is searched once.
 */
function stringEnd(text: string, from: number, backslash: { at: number }): number {
  let i = from;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote === -1) return text.length;
    if (backslash.at !== -1 && backslash.at < i) backslash.at = text.indexOf('\\', i);
    if (backslash.at === -1 || backslash.at > quote) return quote + 1;
    i = backslash.at + 2;
  }
}

/**
 * Rewrites bare integer literals of 16 or more digits as strings. Exported for tests. The body of
 * a string is skipped with `indexOf` (native) rather than a character at a time.
 */
export function quoteLongIntegers(text: string): string {
  let out = '';
  let last = 0;
  let i = 0;
  const n = text.length;
  const backslash = { at: text.indexOf('\\') };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      i = stringEnd(text, i + 1, backslash);
      continue;
    }
    if (c === 45 /* - */ || isDigit(c)) {
      const start = i;
      if (c === 45) i++;
      const digitsStart = i;
      while (i < n && isDigit(text.charCodeAt(i))) i++;
      const digits = i - digitsStart;
      const next = i < n ? text.charCodeAt(i) : 0;
      const isInteger = next !== 46 /* . */ && next !== 101 /* e */ && next !== 69 /* E */;
      if (isInteger && digits >= 16) {
        out += text.slice(last, start) + '"' + text.slice(start, i) + '"';
        last = i;
      } else {
        // skip the rest of a non-integer number literal
        while (i < n) {
          const d = text.charCodeAt(i);
          if (isDigit(d) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45) i++;
          else break;
        }
      }
      continue;
    }
    i++;
  }
  return last === 0 ? text : out + text.slice(last);
}
