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
 * event; so does one nested deeper than `MAX_PATTERN_DEPTH`. Hostile input costs time in proportion
 * to its size: wildcards match without backtracking, arrays nested in an event at any depth are
 * walked without recursion, and objects only as deep as the pattern goes. Pure TypeScript: no AWS SDK, no Node built-in (it ships in `@gym-bridge/events`). The
 * operators are in ./event-pattern-operators.ts.
 */

import { compileMatcher } from './event-pattern-operators';
import { EventPatternError, type EventPatternJson, isObject, type Json } from './event-pattern-types';

export { EventPatternError, type EventPatternJson } from './event-pattern-types';

/**
 * The deepest pattern accepted, in object levels (`$or` counts as one): the walk recurses once a
 * level, so the bound keeps every consumer's stack safe. EventBridge's largest pattern (4,096
 * characters, its quota's ceiling) cannot nest past about 680 levels, so no pattern it takes is
 * refused.
 */
export const MAX_PATTERN_DEPTH = 1000;

/**
 * True when `event` (an EventBridge event: `{ source, 'detail-type', detail, ... }`, as an object
 * or a JSON string) matches `pattern` (an object or a JSON string). Throws `EventPatternError` on
 * an invalid pattern.
 */
export function matchesEventPattern(pattern: EventPatternJson | string, event: unknown): boolean {
  const compiled = compilePattern(pattern);
  const value = typeof event === 'string' ? (JSON.parse(event) as unknown) : event;
  return matchObject(compiled, value);
}

/** Where an event fails a pattern: the first field of the pattern that does not match. */
export interface PatternMismatch {
  /** Dotted path of the field (`detail.data.Status`), as in the pattern. */
  readonly path: string;
  /** The pattern's values for it, as written (e.g. `["Active"]`, `[{ "prefix": "A" }]`). */
  readonly expected: unknown;
  /** The event's value there (undefined: the field is missing). */
  readonly actual: unknown;
  readonly reason: string;
}

/**
 * Whether `pattern` matches `event` and, when it does not, the first field that fails (in the
 * pattern's order): for "why didn't my rule fire?". Throws `EventPatternError` on an invalid pattern.
 */
export function explainEventPattern(
  pattern: EventPatternJson | string,
  event: unknown,
): { readonly matches: true } | { readonly matches: false; readonly mismatch: PatternMismatch } {
  const compiled = compilePattern(pattern);
  const mismatch = mismatchObject(
    compiled,
    typeof event === 'string' ? (JSON.parse(event) as unknown) : event,
    '',
  );
  return mismatch ? { matches: false, mismatch } : { matches: true };
}

/** Throws `EventPatternError` when `pattern` is not a valid EventBridge event pattern. */
export function assertValidEventPattern(pattern: EventPatternJson | string): void {
  compilePattern(pattern);
}

/** A predicate from a pattern, validated once: for filtering many events. */
export function eventPatternMatcher(pattern: EventPatternJson | string): (event: unknown) => boolean {
  const compiled = compilePattern(pattern);
  return (event) => matchObject(compiled, typeof event === 'string' ? (JSON.parse(event) as unknown) : event);
}

function compilePattern(pattern: EventPatternJson | string): ObjectNode {
  const parsed = typeof pattern === 'string' ? parsePatternJson(pattern) : pattern;
  assertDepth(parsed);
  return compileObject(parsed, '', true);
}

/**
 * Throws when a pattern nests objects (or `$or` alternatives) deeper than MAX_PATTERN_DEPTH,
 * walking with a stack before anything recurses, and naming where (the path's start and end).
 */
function assertDepth(pattern: unknown): void {
  const stack: Array<readonly [unknown, number, string]> = [[pattern, 1, '']];
  while (stack.length > 0) {
    const [node, depth, path] = stack.pop()!;
    if (!isObject(node)) continue;
    if (depth > MAX_PATTERN_DEPTH) {
      const shown = path.length > 200 ? `${path.slice(0, 80)}...${path.slice(-80)}` : path;
      throw new EventPatternError(shown, `nested deeper than ${MAX_PATTERN_DEPTH} levels`);
    }
    for (const [key, value] of Object.entries(node)) {
      const at = joinPath(path, key);
      if (key === '$or' && Array.isArray(value)) {
        value.forEach((sub, i) => {
          stack.push([sub, depth + 1, `${at}[${i}]`]);
        });
      } else {
        stack.push([value, depth + 1, at]);
      }
    }
  }
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
  /** The pattern's list of values, as written: what a mismatch reports as expected. */
  readonly expected: readonly unknown[];
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
  return exists === undefined
    ? { leaf: true, expected: values, tests }
    : { leaf: true, expected: values, exists, tests };
}

// ---------------------------------------------------------------------------------------------
// Matching

function matchObject(node: ObjectNode, value: unknown): boolean {
  return mismatchObject(node, value, '') === undefined;
}

/**
 * The first field of the pattern the event fails, in the pattern's order (undefined: it matches).
 * An array in the event fails when no element matches: the first element's failure is reported.
 */
function mismatchObject(node: ObjectNode, value: unknown, path: string): PatternMismatch | undefined {
  if (Array.isArray(value)) {
    const failures = flattenArrays(value).map((element) => mismatchObject(node, element, path));
    return failures.some((f) => f === undefined)
      ? undefined
      : (failures[0] ?? { path, expected: 'an object', actual: value, reason: 'an empty list' });
  }
  const object = isObject(value) ? value : undefined;
  for (const [key, child] of node.fields) {
    const at = joinPath(path, key);
    const field = object && Object.hasOwn(object, key) ? object[key] : undefined;
    const failed = 'leaf' in child ? mismatchLeaf(child, field, at) : mismatchObject(child, field, at);
    if (failed) return failed;
  }
  if (!node.or) return undefined;
  const alternatives = node.or.map((sub) => mismatchObject(sub, value, path));
  if (alternatives.some((f) => f === undefined)) return undefined;
  const first = alternatives[0]!;
  return {
    ...first,
    reason: `none of the ${alternatives.length} $or alternatives matches; the first: ${first.reason}`,
  };
}

/**
 * The elements of an array and of the arrays nested in it, in order, with a stack instead of
 * recursion: an event may nest arrays as deep as its size allows.
 */
function flattenArrays(value: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push(item[i]);
    } else {
      out.push(item);
    }
  }
  return out;
}

/** The leaf values of a field: arrays flattened, objects dropped (they are not leaves). */
function leaves(value: unknown): Json[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return isObject(value) ? [] : [value as Json];
  return flattenArrays(value).filter((element): element is Json => !isObject(element));
}

function mismatchLeaf(node: LeafNode, value: unknown, path: string): PatternMismatch | undefined {
  const values = leaves(value);
  const actual = value === undefined ? undefined : (value as Json);
  if (node.exists !== undefined) {
    if (node.exists === values.length > 0) return undefined;
    const reason = node.exists ? 'the field is missing (or not a value)' : 'the field is present';
    return { path, expected: node.expected, actual, reason };
  }
  if (values.some((v) => node.tests.some((test) => test(v)))) return undefined;
  const reason =
    value === undefined
      ? 'the event has no such field'
      : values.length === 0
        ? 'the field holds no value (an object or an empty list)'
        : 'no value of the pattern matches the field';
  return { path, expected: node.expected, actual, reason };
}
