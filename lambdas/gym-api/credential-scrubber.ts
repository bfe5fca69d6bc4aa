/**
 * Credentials an upstream echoes in what it answers never travel further. What is decided is what
 * the answer says, never one way of writing it:
 *
 * - A page is decided on its parsed JSON (`values`): every string (keys and values, the envelope's
 *   `href` and `next` as well as the records), and every number when a credential could be a
 *   number's text, is checked for the API key, the bearer token and the integrator login in every
 *   form `secretVariants` knows, also where the string still holds escapes that decode to one
 *   (common/redact.ts, `redactDecoded`). Whatever escapes the raw text used (`\u006b` for `k`,
 *   `\u002B` for `+` as .NET writes it, `\/`, surrogate pairs), JSON.parse has already undone them,
 *   so no way of writing the body can hide a credential from the check. A string that holds one is
 *   replaced by its cleaned text (`[redacted]` in place of the credential), before anything reads
 *   the page: no event, quarantine entry, snapshot or log line can carry it.
 * - Upstream text that is not parsed (`text`, `cutText`: what was read of an answer over the cap)
 *   is redacted the same way, decoded where a credential shows only decoded, and scrubbed of
 *   anything shaped like a key or token.
 *
 * The walk costs about what the old check of the raw text did (one regular expression per string
 * against one over the body: docs/client.md gives the figures), and needs no raw-text fast path
 * that an escape could fool.
 */
import {
  allVariants,
  decodeFully,
  ESCAPE_SEQUENCE,
  MIN_SECRET_CHARS,
  redactDecoded,
  scrubTokenLike,
  variantPattern,
} from '../common/redact';

const MARK = '[redacted]';

/** The characters of a number's text (`String(n)`): a variant made only of them may be one. */
const NUMBER_TEXT = /^[-+.e0-9]+$/;

export class CredentialScrubber {
  /** Every variant of the secrets, longest first. */
  readonly #variants: readonly string[];
  readonly #pattern: RegExp | undefined;
  /**
   * A variant or an escape (ESCAPE_SEQUENCE), without the global flag: the one test a string with
   * neither needs.
   */
  readonly #screen: RegExp | undefined;
  /** A variant could be (part of) a number's text: numbers are checked too. */
  readonly #numbers: boolean;

  constructor(secrets: readonly (string | undefined)[]) {
    this.#variants = allVariants(secrets);
    this.#pattern = variantPattern(this.#variants);
    this.#screen = this.#pattern && new RegExp(`${this.#pattern.source}|${ESCAPE_SEQUENCE.source}`);
    this.#numbers = this.#variants.some((v) => NUMBER_TEXT.test(v) && /\d/.test(v));
  }

  /**
   * `text` without the secrets, in any form, decoded where one shows only decoded; nothing else
   * touched (a link still parses).
   */
  secrets(text: string): string {
    return this.#clean(text);
  }

  #clean(text: string): string {
    const pattern = this.#pattern;
    if (!pattern) return text;
    // The common case first (a string with no escape and no credential): one test, nothing made.
    if (!this.#screen!.test(text)) return text;
    return redactDecoded(text, (t) => t.replace(pattern, MARK));
  }

  /** Upstream text without the secrets, and without anything shaped like a key or token. */
  text(text: string): string {
    return scrubTokenLike(this.#clean(text));
  }

  /**
   * Upstream text cut at its end (the first bytes of an answer over the cap), cleaned as `text`,
   * and without the start of a credential the cut left at its end: what remains, read decoded,
   * that begins a variant (MIN_SECRET_CHARS or more of it) is replaced too.
   */
  cutText(text: string): string {
    const cleaned = this.text(text);
    const decoded = decodeFully(cleaned);
    for (const variant of this.#variants) {
      for (let n = Math.min(variant.length - 1, decoded.length); n >= MIN_SECRET_CHARS; n--) {
        if (decoded.endsWith(variant.slice(0, n))) return `${decoded.slice(0, decoded.length - n)}${MARK}`;
      }
    }
    return cleaned;
  }

  /**
   * Replaces the secrets in every string (values and keys) of parsed JSON, in place, walking
   * without recursion (the value is fresh from JSON.parse: a tree, no cycles); a number whose text
   * holds a secret becomes `[redacted]`. Returns how many strings and numbers it changed.
   */
  values(root: unknown): number {
    if (!this.#pattern || !root || typeof root !== 'object') return 0;
    let changed = 0;
    // Records of a page repeat their keys: each key is checked once a walk.
    const keys = new Map<string, string>();
    const stack: object[] = [root];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (Array.isArray(node)) {
        for (let i = 0; i < node.length; i++) {
          const v: unknown = node[i];
          if (v !== null && typeof v === 'object') stack.push(v);
          else {
            const cleaned = this.#cleanValue(v);
            if (cleaned !== v) {
              node[i] = cleaned;
              changed++;
            }
          }
        }
        continue;
      }
      const record = node as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const v = record[key];
        if (v !== null && typeof v === 'object') stack.push(v);
        else {
          const cleaned = this.#cleanValue(v);
          if (cleaned !== v) {
            record[key] = cleaned;
            changed++;
          }
        }
        let cleanKey = keys.get(key);
        if (cleanKey === undefined) {
          cleanKey = this.#clean(key);
          keys.set(key, cleanKey);
        }
        if (cleanKey !== key) {
          const value = record[key];
          delete record[key];
          record[freeKey(record, cleanKey)] = value;
          changed++;
        }
      }
    }
    return changed;
  }

  /** A scalar of parsed JSON cleaned: a string, or a number whose text holds a secret. */
  #cleanValue(v: unknown): unknown {
    if (typeof v === 'string') return this.#clean(v);
    if (typeof v === 'number' && this.#numbers) {
      const text = String(v);
      return this.#clean(text) === text ? v : MARK;
    }
    return v;
  }
}

/** `key`, or `key#2`, `key#3`, ... when the record has it already (two keys cleaned alike). */
function freeKey(record: Record<string, unknown>, key: string): string {
  if (!Object.hasOwn(record, key)) return key;
  for (let n = 2; ; n++) if (!Object.hasOwn(record, `${key}#${n}`)) return `${key}#${n}`;
}
