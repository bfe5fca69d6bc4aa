/**
 * Credentials an upstream echoes in what it answers never travel further: a page whose body quotes
 * the club's API key, the bearer token or the integrator login (in any form `secretVariants` knows)
 * has every such string of its records replaced by `[redacted]` before anything reads them, so no
 * event, quarantine entry or log line can carry it. Error texts go through `text`.
 *
 * The check of a whole body is one regular expression over the text (about 1 ms for 2.5 MB);
 * only a body that matches is walked record by record.
 */
import { scrubTokenLike, secretPattern } from '../common/redact';

const MARK = '[redacted]';

export class CredentialScrubber {
  readonly #pattern: RegExp | undefined;

  constructor(secrets: readonly (string | undefined)[]) {
    this.#pattern = secretPattern(secrets);
  }

  /** True when any of the secrets, in any form, occurs in `text`. */
  appearsIn(text: string): boolean {
    if (!this.#pattern) return false;
    this.#pattern.lastIndex = 0;
    const found = this.#pattern.test(text);
    this.#pattern.lastIndex = 0;
    return found;
  }

  /** Upstream text without the secrets, and without anything shaped like a key or token. */
  text(text: string): string {
    const cleaned = this.#pattern ? text.replace(this.#pattern, MARK) : text;
    return scrubTokenLike(cleaned);
  }

  /**
   * Replaces the secrets in every string (values and keys) of the values, in place, walking without
   * recursion. Returns how many strings it changed.
   */
  values(roots: readonly unknown[]): number {
    const pattern = this.#pattern;
    if (!pattern) return 0;
    let changed = 0;
    const clean = (s: string) => {
      const out = s.replace(pattern, MARK);
      if (out !== s) changed++;
      return out;
    };
    const stack: object[] = [];
    for (const root of roots) if (root && typeof root === 'object') stack.push(root);
    const seen = new Set<object>();
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (seen.has(node)) continue;
      seen.add(node);
      if (Array.isArray(node)) {
        for (let i = 0; i < node.length; i++) {
          const v: unknown = node[i];
          if (typeof v === 'string') node[i] = clean(v);
          else if (v && typeof v === 'object') stack.push(v);
        }
        continue;
      }
      const record = node as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const v = record[key];
        const cleanKey = clean(key);
        if (cleanKey !== key) {
          delete record[key];
          record[cleanKey] = v;
        }
        if (typeof v === 'string') record[cleanKey] = clean(v);
        else if (v && typeof v === 'object') stack.push(v);
      }
    }
    return changed;
  }
}
