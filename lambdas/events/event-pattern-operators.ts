/**
 * The content-filter operators of the offline event-pattern matcher (./event-pattern.ts): each
 * compiles its argument once, throwing `EventPatternError` with the path of a bad one, into a test
 * of a leaf value: prefix, suffix, equals-ignore-case, wildcard, anything-but, numeric and cidr.
 */
import { EventPatternError, isObject, type Json } from './event-pattern-types';

function requireString(arg: unknown, path: string): string {
  if (typeof arg !== 'string') throw new EventPatternError(path, 'must be a string');
  return arg;
}

/** prefix / suffix: a string, or `{ 'equals-ignore-case': string }`. */
function affixTest(kind: 'prefix' | 'suffix', arg: unknown, path: string): (s: string) => boolean {
  let text: string;
  let ignoreCase = false;
  if (isObject(arg)) {
    const entries = Object.entries(arg);
    if (entries.length !== 1 || entries[0]![0] !== 'equals-ignore-case') {
      throw new EventPatternError(path, `must be a string or { "equals-ignore-case": string }`);
    }
    text = requireString(entries[0]![1], `${path}.equals-ignore-case`);
    ignoreCase = true;
  } else {
    text = requireString(arg, path);
  }
  if (ignoreCase) {
    const folded = fold(text);
    return kind === 'prefix' ? (s) => fold(s).startsWith(folded) : (s) => fold(s).endsWith(folded);
  }
  return kind === 'prefix' ? (s) => s.startsWith(text) : (s) => s.endsWith(text);
}

const fold = (s: string) => s.toLowerCase().toUpperCase().toLowerCase();

/**
 * `*` any run of characters (none too), `\*` a literal star, `\\` a backslash; case-sensitive and
 * anchored at both ends, as EventBridge documents. Parsed once into the literal runs between the
 * stars and matched greedily: the first run is a prefix, the last a suffix, and each run between is
 * found at its first occurrence after the previous one. No regex and no step undone, so a value of
 * n characters costs at most O(n × pattern length), where the regex this replaced took seconds on
 * `*a*a*a*a*b` against 200 `a`s (docs/deploy.md, the offline matcher).
 */
function wildcardTest(arg: unknown, path: string): (s: string) => boolean {
  const text = requireString(arg, path);
  const runs: string[] = [''];
  let previousStar = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      const next = text[i + 1];
      if (next !== '*' && next !== '\\') {
        throw new EventPatternError(path, 'a backslash escapes only * or \\');
      }
      runs[runs.length - 1] += next;
      i++;
      previousStar = false;
    } else if (c === '*') {
      if (previousStar) throw new EventPatternError(path, 'consecutive wildcard characters');
      runs.push('');
      previousStar = true;
    } else {
      runs[runs.length - 1] += c;
      previousStar = false;
    }
  }
  const first = runs[0]!;
  if (runs.length === 1) return (s) => s === first;
  const last = runs[runs.length - 1]!;
  const middle = runs.slice(1, -1).filter((run) => run !== '');
  return (s) => {
    if (s.length < first.length + last.length || !s.startsWith(first) || !s.endsWith(last)) return false;
    const end = s.length - last.length;
    let at = first.length;
    for (const run of middle) {
      const found = s.indexOf(run, at);
      if (found === -1 || found + run.length > end) return false;
      at = found + run.length;
    }
    return true;
  };
}

const stringTest =
  (test: (s: string) => boolean) =>
  (v: Json): boolean =>
    typeof v === 'string' && test(v);

export function compileMatcher(name: string, arg: unknown, path: string): (value: Json) => boolean {
  switch (name) {
    case 'prefix':
    case 'suffix':
      return stringTest(affixTest(name, arg, path));
    case 'equals-ignore-case': {
      const text = fold(requireString(arg, path));
      return stringTest((s) => fold(s) === text);
    }
    case 'wildcard':
      return stringTest(wildcardTest(arg, path));
    case 'numeric':
      return numericTest(arg, path);
    case 'cidr':
      return cidrTest(arg, path);
    case 'anything-but':
      return anythingButTest(arg, path);
    default:
      throw new EventPatternError(path, `unknown matcher '${name}'`);
  }
}

function anythingButTest(arg: unknown, path: string): (value: Json) => boolean {
  if (typeof arg === 'string' || typeof arg === 'number') return anythingButTest([arg], path);
  if (Array.isArray(arg)) {
    if (arg.length === 0) throw new EventPatternError(path, 'empty list');
    const strings = new Set<string>();
    const numbers: number[] = [];
    arg.forEach((item, i) => {
      if (typeof item === 'string') strings.add(item);
      else if (typeof item === 'number' && Number.isFinite(item)) numbers.push(item);
      else throw new EventPatternError(`${path}[${i}]`, 'anything-but lists hold strings or numbers');
    });
    return (v) => !(typeof v === 'string' ? strings.has(v) : typeof v === 'number' && numbers.includes(v));
  }
  if (isObject(arg)) {
    const entries = Object.entries(arg);
    if (entries.length !== 1)
      throw new EventPatternError(path, 'one of prefix, suffix, equals-ignore-case, wildcard');
    const [name, inner] = entries[0]!;
    const at = `${path}.${name}`;
    let test: (s: string) => boolean;
    if (name === 'prefix' || name === 'suffix') {
      if (typeof inner !== 'string') throw new EventPatternError(at, 'must be a string');
      test = affixTest(name, inner, at);
    } else if (name === 'equals-ignore-case' || name === 'wildcard') {
      const items = Array.isArray(inner) ? inner : [inner];
      if (items.length === 0) throw new EventPatternError(at, 'empty list');
      const tests = items.map((item, i) =>
        name === 'wildcard'
          ? wildcardTest(item, Array.isArray(inner) ? `${at}[${i}]` : at)
          : (
              (text: string) => (s: string) =>
                fold(s) === text
            )(fold(requireString(item, Array.isArray(inner) ? `${at}[${i}]` : at))),
      );
      test = (s) => tests.some((t) => t(s));
    } else {
      throw new EventPatternError(at, `anything-but does not take '${name}'`);
    }
    // Only strings can be excluded by a string matcher; other values are "anything but" it.
    return (v) => !(typeof v === 'string' && test(v));
  }
  throw new EventPatternError(path, 'must be a string, a number, a list of them or a matcher object');
}

const LOWER = new Set(['>', '>=']);
const UPPER = new Set(['<', '<=']);

function numericTest(arg: unknown, path: string): (value: Json) => boolean {
  if (!Array.isArray(arg) || arg.length === 0 || arg.length % 2 !== 0 || arg.length > 4) {
    throw new EventPatternError(path, 'must be [op, number] or [op, number, op, number]');
  }
  const checks: Array<(n: number) => boolean> = [];
  let lower: number | undefined;
  let upper: number | undefined;
  for (let i = 0; i < arg.length; i += 2) {
    const op = arg[i];
    const n = arg[i + 1];
    if (typeof n !== 'number' || !Number.isFinite(n)) {
      throw new EventPatternError(`${path}[${i + 1}]`, 'must be a number');
    }
    if (op === '=') {
      if (arg.length !== 2)
        throw new EventPatternError(`${path}[${i}]`, "'=' cannot be combined with a range");
      checks.push((x) => x === n);
    } else if (typeof op === 'string' && LOWER.has(op)) {
      if (lower !== undefined) throw new EventPatternError(`${path}[${i}]`, 'two lower bounds');
      lower = n;
      checks.push(op === '>' ? (x) => x > n : (x) => x >= n);
    } else if (typeof op === 'string' && UPPER.has(op)) {
      if (upper !== undefined) throw new EventPatternError(`${path}[${i}]`, 'two upper bounds');
      upper = n;
      checks.push(op === '<' ? (x) => x < n : (x) => x <= n);
    } else {
      throw new EventPatternError(
        `${path}[${i}]`,
        `unknown operator ${JSON.stringify(op)} (=, <, <=, >, >=)`,
      );
    }
  }
  if (lower !== undefined && upper !== undefined && !(lower < upper)) {
    throw new EventPatternError(path, 'the lower bound must be below the upper bound');
  }
  return (v) => typeof v === 'number' && checks.every((check) => check(v));
}

function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = value * 256 + n;
  }
  return value;
}

function cidrTest(arg: unknown, path: string): (value: Json) => boolean {
  const text = requireString(arg, path);
  const [address, bitsText] = text.split('/');
  const base = address === undefined ? undefined : parseIpv4(address);
  const bits = bitsText !== undefined && /^\d{1,2}$/.test(bitsText) ? Number(bitsText) : Number.NaN;
  if (base === undefined || !(bits >= 0 && bits <= 32)) {
    throw new EventPatternError(path, 'must be an IPv4 CIDR block such as 10.0.0.0/24');
  }
  const size = 2 ** (32 - bits);
  const start = Math.floor(base / size) * size;
  return (v) => {
    if (typeof v !== 'string') return false;
    const ip = parseIpv4(v);
    return ip !== undefined && ip >= start && ip < start + size;
  };
}
