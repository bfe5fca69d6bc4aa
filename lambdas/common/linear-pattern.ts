/**
 * Regular expressions an operator writes, run against text the upstream sends, in linear time: RE2
 * syntax on re2js (a pure-JavaScript port of RE2: no native build, no WebAssembly), which never
 * backtracks. JavaScript's own engine backtracks: `^(a+)+$` took 644 ms on 27 characters and twice
 * as long with each more, so one club's rule and one odd `Response` could stall a poll for good.
 *
 * RE2 syntax is JavaScript's without lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`), backreferences
 * (`\1`, `\k<name>`) and `\u` escapes (write `\x{e9}`); a pattern using them is refused with RE2's
 * reason, when the club's config is read. Used for the per-club payment rules
 * (sources/payment-classifier.ts, validated in clubs/club-config.ts).
 */
import { RE2JS } from 're2js';

export class LinearPatternError extends Error {
  override readonly name = 'LinearPatternError';
}

/** A compiled pattern: `test` is true when it matches anywhere in the text. */
export interface LinearPattern {
  readonly source: string;
  test(text: string): boolean;
}

/**
 * Compiled patterns by source, the oldest dropped past the bound: compiling costs 0.2-0.5 ms for a
 * typical rule and 26 ms for one of 3,500 characters, and every read of a club's record validates
 * its rules (the dispatcher lists the whole fleet), while a fleet shares a few distinct rules.
 */
const COMPILED = new Map<string, LinearPattern>();
const MAX_COMPILED = 512;

/** Compiles `source` (RE2 syntax, case-insensitive). Throws LinearPatternError with RE2's reason. */
export function compileLinearPattern(source: string): LinearPattern {
  const cached = COMPILED.get(source);
  if (cached) return cached;
  const pattern = compile(source);
  if (COMPILED.size >= MAX_COMPILED) COMPILED.delete(COMPILED.keys().next().value as string);
  COMPILED.set(source, pattern);
  return pattern;
}

function compile(source: string): LinearPattern {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source, RE2JS.CASE_INSENSITIVE);
  } catch (err) {
    // re2js reports the pattern with its flags prepended (`(?i)(unclosed`): the operator wrote `(unclosed`.
    const reason = (err instanceof Error ? err.message : String(err))
      .replace(/^error parsing regexp: /, '')
      .replaceAll('`(?i)', '`');
    throw new LinearPatternError(reason, { cause: err });
  }
  return { source, test: (text) => compiled.test(text) };
}
