/**
 * An offline EventBridge event-pattern matcher: does this rule pattern match this event? For
 * consumers' tests, for filtering an events file before a replay, and for checking the CDK
 * subscriptions against the events the bridge publishes, without an AWS account.
 *
 * Patterns are EventBridge's JSON form (`detail-type`, not CDK's `detailType`). Supported, as
 * documented in "Amazon EventBridge event patterns" / "Content filtering":
 *
 * - field nesting (`{ detail: { data: { Status: [...] } } }`); every field of the pattern must match;
 * - a list of values matches when any of them matches (OR);
 * - exact values: strings, numbers (compared as numbers: `300` matches `300.0`), booleans, `null`
 *   (matches a field whose value is null, not a missing field);
 * - `{ prefix: 'x' }`, `{ suffix: 'x' }` (also `{ prefix: { 'equals-ignore-case': 'x' } }`, same
 *   for suffix), `{ 'equals-ignore-case': 'x' }`, `{ wildcard: 'a*b' }` (`*` any run of
 *   characters, `\*` a literal star, `\\` a backslash);
 * - `{ 'anything-but': v }` with a string, a number, a list of them, or `{ prefix }`, `{ suffix }`,
 *   `{ 'equals-ignore-case': s | s[] }`, `{ wildcard: s | s[] }`: the field must be present and
 *   its value not one of them;
 * - `{ numeric: ['>', 0, '<=', 5] }` (`=`, `<`, `<=`, `>`, `>=`; one lower and/or one upper bound,
 *   or `=` alone): numbers only;
 * - `{ exists: true | false }`: whether the field has a value (a leaf: string, number, boolean or
 *   null; like EventBridge, a field whose value is an object or an empty array does not "exist");
 * - `{ cidr: '10.0.0.0/24' }` (IPv4);
 * - `$or: [pattern, pattern, ...]` at any object level: the object matches when any of them does
 *   (together with that level's other fields).
 *
 * Arrays in the event: a field whose value is an array matches when any element matches; an array
 * of objects matches a nested pattern when one element matches all of that level's fields.
 *
 * An invalid pattern throws `EventPatternError` (with the JSON path of the problem) whatever the
 * event. Pure TypeScript: no AWS SDK, no Node built-in (it ships in `@gym-bridge/events`).
 */

/** An EventBridge event pattern in its JSON form. */
export type EventPatternJson = { readonly [field: string]: unknown };

export class EventPatternError extends Error {
  override readonly name = 'EventPatternError';
  /** Where in the pattern, e.g. `detail.status[0]`. */
  readonly path: string;
  constructor(path: string, problem: string) {
    super(`invalid event pattern at ${path || '(root)'}: ${problem}`);
    this.path = path;
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * True when `event` (an EventBridge event: `{ source, 'detail-type', detail, ... }`, as an object
 * or a JSON string) matches `pattern` (an object or a JSON string). Throws `EventPatternError` on
 * an invalid pattern.
 */
export function matchesEventPattern(pattern: EventPatternJson | string, event: unknown): boolean {
  const parsed = typeof pattern === 'string' ? parsePatternJson(pattern) : pattern;
  const compiled = compileObject(parsed, '', true);
  const value = typeof event === 'string' ? (JSON.parse(event) as unknown) : event;
  return matchObject(compiled, value);
}

/** Throws `EventPatternError` when `pattern` is not a valid EventBridge event pattern. */
export function assertValidEventPattern(pattern: EventPatternJson | string): void {
  compileObject(typeof pattern === 'string' ? parsePatternJson(pattern) : pattern, '', true);
}

/** A predicate from a pattern, validated once: for filtering many events. */
export function eventPatternMatcher(pattern: EventPatternJson | string): (event: unknown) => boolean {
  const compiled = compileObject(typeof pattern === 'string' ? parsePatternJson(pattern) : pattern, '', true);
  return (event) => matchObject(compiled, typeof event === 'string' ? (JSON.parse(event) as unknown) : event);
}

function parsePatternJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new EventPatternError('', `not JSON (${(error as Error).message})`);
  }
}

// ---------------------------------------------------------------------------------------------
// Compiled form

interface ObjectNode {
  readonly fields: ReadonlyArray<readonly [string, ObjectNode | LeafNode]>;
  readonly or?: readonly ObjectNode[];
}

interface LeafNode {
  readonly leaf: true;
  /** `exists: true/false` tests, checked against the whole field. */
  readonly exists?: boolean;
  /** Value tests; the field matches when any leaf value passes any of them. */
  readonly tests: ReadonlyArray<(value: Json) => boolean>;
}

const joinPath = (path: string, key: string) => (path ? `${path}.${key}` : key);

function compileObject(pattern: unknown, path: string, root = false): ObjectNode {
  if (!isObject(pattern)) throw new EventPatternError(path, 'must be a JSON object');
  const entries = Object.entries(pattern);
  if (entries.length === 0) throw new EventPatternError(path, root ? 'the pattern is empty' : 'empty object');
  const fields: Array<readonly [string, ObjectNode | LeafNode]> = [];
  let or: ObjectNode[] | undefined;
  for (const [key, value] of entries) {
    const at = joinPath(path, key);
    if (key === '$or') {
      if (!Array.isArray(value) || value.length < 2) {
        throw new EventPatternError(at, '$or must be a list of at least two patterns');
      }
      or = value.map((sub, i) => compileObject(sub, `${at}[${i}]`));
    } else if (Array.isArray(value)) {
      fields.push([key, compileLeaf(value, at)]);
    } else if (isObject(value)) {
      fields.push([key, compileObject(value, at)]);
    } else {
      throw new EventPatternError(at, `must be a list of values or an object, not ${JSON.stringify(value)}`);
    }
  }
  return or ? { fields, or } : { fields };
}

function compileLeaf(values: unknown[], path: string): LeafNode {
  if (values.length === 0) throw new EventPatternError(path, 'empty list of values');
  const tests: Array<(value: Json) => boolean> = [];
  let exists: boolean | undefined;
  values.forEach((option, i) => {
    const at = `${path}[${i}]`;
    if (option === null || typeof option === 'boolean') {
      tests.push((v) => v === option);
    } else if (typeof option === 'string') {
      tests.push((v) => v === option);
    } else if (typeof option === 'number') {
      if (!Number.isFinite(option)) throw new EventPatternError(at, 'not a finite number');
      tests.push((v) => typeof v === 'number' && v === option);
    } else if (isObject(option)) {
      const entries = Object.entries(option);
      if (entries.length !== 1) {
        throw new EventPatternError(
          at,
          'a matcher object has exactly one key (prefix, numeric, exists, ...)',
        );
      }
      const [name, arg] = entries[0]!;
      if (name === 'exists') {
        if (typeof arg !== 'boolean') throw new EventPatternError(`${at}.exists`, 'must be true or false');
        if (values.length > 1) {
          throw new EventPatternError(at, 'exists cannot be combined with other values in one list');
        }
        exists = arg;
      } else {
        tests.push(compileMatcher(name, arg, `${at}.${name}`));
      }
    } else {
      throw new EventPatternError(at, `unsupported value ${JSON.stringify(option)}`);
    }
  });
  return exists === undefined ? { leaf: true, tests } : { leaf: true, exists, tests };
}

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

function wildcardTest(arg: unknown, path: string): (s: string) => boolean {
  const text = requireString(arg, path);
  let source = '';
  let previousStar = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      const next = text[i + 1];
      if (next !== '*' && next !== '\\') {
        throw new EventPatternError(path, 'a backslash escapes only * or \\');
      }
      source += `\\${next}`;
      i++;
      previousStar = false;
    } else if (c === '*') {
      if (previousStar) throw new EventPatternError(path, 'consecutive wildcard characters');
      source += '[\\s\\S]*';
      previousStar = true;
    } else {
      source += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      previousStar = false;
    }
  }
  const re = new RegExp(`^${source}$`, 'u');
  return (s) => re.test(s);
}

const stringTest =
  (test: (s: string) => boolean) =>
  (v: Json): boolean =>
    typeof v === 'string' && test(v);

function compileMatcher(name: string, arg: unknown, path: string): (value: Json) => boolean {
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

// ---------------------------------------------------------------------------------------------
// Matching

function matchObject(node: ObjectNode, value: unknown): boolean {
  if (Array.isArray(value)) return value.some((element) => matchObject(node, element));
  const object = isObject(value) ? value : undefined;
  for (const [key, child] of node.fields) {
    const field = object && Object.hasOwn(object, key) ? object[key] : undefined;
    const ok = 'leaf' in child ? matchLeaf(child, field) : matchObject(child, field);
    if (!ok) return false;
  }
  return node.or ? node.or.some((sub) => matchObject(sub, value)) : true;
}

/** The leaf values of a field: arrays flattened, objects dropped (they are not leaves). */
function leaves(value: unknown, out: Json[] = []): Json[] {
  if (value === undefined) return out;
  if (Array.isArray(value)) {
    for (const element of value) leaves(element, out);
  } else if (!isObject(value)) {
    out.push(value as Json);
  }
  return out;
}

function matchLeaf(node: LeafNode, value: unknown): boolean {
  const values = leaves(value);
  if (node.exists !== undefined) return node.exists ? values.length > 0 : values.length === 0;
  return values.some((v) => node.tests.some((test) => test(v)));
}
