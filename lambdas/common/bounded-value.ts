/**
 * The limits on what one upstream record may be, decided once, and the walks over a JSON value that
 * can never throw or overflow the stack, whatever the value holds (docs/security.md, "What the
 * upstream can send").
 *
 * A record deeper than RECORD_LIMITS.maxDepth or larger than RECORD_LIMITS.maxBytes (as JSON text)
 * is not a record the bridge can carry: the API client reports it as an invalid item, so the engine
 * quarantines it with the reason and processes the rest of the page. Every record that passes has a
 * bounded depth, so the recursive code after it (zod, the PII policy, JSON.stringify, the stores)
 * cannot overflow the stack. Quarantine, logs and error texts use `boundedCopy`/`safeStringify`, which
 * are iterative and cut what they keep.
 */

export interface RecordLimits {
  /** Deepest nesting of objects and arrays in one record (the record itself is depth 1). */
  readonly maxDepth: number;
  /** Largest record, measured as JSON text in UTF-8 bytes (about: strings counted by UTF-16 length). */
  readonly maxBytes: number;
}

/**
 * The documented records are at most 4 levels deep (a POS transaction's item) and a few KB; an
 * event carries its record in `data` and EventBridge takes 256 KB an event, so a record over 128 KB
 * could not be published whole under the `full` PII policy anyway.
 */
export const RECORD_LIMITS: RecordLimits = { maxDepth: 32, maxBytes: 128 * 1024 };

export interface ValueMeasure {
  /** Deepest nesting met (capped at the limit + 1: the walk stops there). */
  readonly depth: number;
  /** Approximate size as JSON text (capped at the limit + 1). */
  readonly bytes: number;
  /** Where the first limit was passed, e.g. `Extra.a.b` (undefined when within both limits). */
  readonly path?: string;
  readonly exceeded?: 'depth' | 'bytes';
}

interface Frame {
  readonly value: unknown;
  readonly depth: number;
  /** The frame of the object or array holding this value, and its key or index there. */
  readonly parent?: Frame;
  readonly key?: string | number;
}

/** Where a frame sits, e.g. `Extra.a[2].b` (keys cut to 40 characters): built only when reported. */
function pathOf(frame: Frame): string {
  const chain: Frame[] = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) chain.push(f);
  let path = '';
  for (let i = chain.length - 1; i >= 0; i--) {
    const key = chain[i]!.key!;
    if (typeof key === 'number') path = `${path}[${key}]`;
    else path = path ? `${path}.${key.slice(0, 40)}` : key.slice(0, 40);
  }
  return path || '(record)';
}

/** A scalar's approximate size as JSON text. */
function scalarBytes(v: unknown): number {
  if (typeof v === 'string') return v.length + 2;
  return typeof v === 'number' || typeof v === 'boolean' ? 8 : 4;
}

/**
 * Depth and approximate JSON size of a value, walked without recursion; stops as soon as a limit is
 * passed. Never throws. Only objects and arrays take a frame on the stack: a scalar member is
 * counted where its holder is met (a page's rows are mostly scalars; a frame each was most of the
 * walk's cost), and its frame is made only to say where it passed the limit.
 */
export function measureValue(value: unknown, limits: RecordLimits = RECORD_LIMITS): ValueMeasure {
  if (value === null || typeof value !== 'object') {
    const bytes = scalarBytes(value);
    return bytes > limits.maxBytes
      ? { depth: 0, bytes, path: '(record)', exceeded: 'bytes' }
      : { depth: 0, bytes };
  }
  const stack: Frame[] = [{ value, depth: 1 }];
  let bytes = 0;
  let deepest = 0;
  const over = (frame: Frame, key: string | number) =>
    ({
      depth: deepest,
      bytes,
      path: pathOf({ value: undefined, depth: frame.depth + 1, parent: frame, key }),
      exceeded: 'bytes',
    }) as const;
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { value: v, depth } = frame;
    if (depth > deepest) deepest = depth;
    if (depth > limits.maxDepth) return { depth, bytes, path: pathOf(frame), exceeded: 'depth' };
    bytes += 2;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const item: unknown = v[i];
        bytes += 1;
        if (item !== null && typeof item === 'object') {
          stack.push({ value: item, depth: depth + 1, parent: frame, key: i });
          continue;
        }
        bytes += scalarBytes(item);
        if (bytes > limits.maxBytes) return over(frame, i);
      }
    } else {
      for (const key of Object.keys(v as object)) {
        const member = (v as Record<string, unknown>)[key];
        bytes += key.length + 4;
        if (member !== null && typeof member === 'object') {
          stack.push({ value: member, depth: depth + 1, parent: frame, key });
          continue;
        }
        bytes += scalarBytes(member);
        if (bytes > limits.maxBytes) return over(frame, key);
      }
    }
    if (bytes > limits.maxBytes) return { depth: deepest, bytes, path: pathOf(frame), exceeded: 'bytes' };
  }
  return { depth: deepest, bytes };
}

export interface CopyLimits {
  /** Objects/arrays below this depth are replaced by a marker string. @default 8 */
  readonly maxDepth?: number;
  /** Strings are cut to this many characters. @default 1000 */
  readonly maxStringChars?: number;
  /** Members kept per object or array. @default 200 */
  readonly maxMembers?: number;
  /** After about this many characters of output, the rest is replaced by markers. @default 16384 */
  readonly maxChars?: number;
}

const COPY_DEFAULTS: Required<CopyLimits> = {
  maxDepth: 8,
  maxStringChars: 1000,
  maxMembers: 200,
  maxChars: 16 * 1024,
};

/**
 * A JSON-safe copy of any value, cut to the limits: deeper levels, longer strings, more members
 * and output past `maxChars` are replaced by markers that say what was left out. Iterative; never
 * throws (getters that throw, cycles, bigints and functions included).
 */
export function boundedCopy(value: unknown, limits: CopyLimits = {}): unknown {
  const l = { ...COPY_DEFAULTS, ...limits };
  let budget = l.maxChars;
  const root: { v?: unknown } = {};
  const seen = new Set<object>();
  const jobs: CopyJob[] = [{ value, depth: 1, put: (v) => (root.v = v) }];
  while (jobs.length > 0) {
    const { value: v, depth, put, cost } = jobs.pop()!;
    budget -= cost ?? 0;
    if (budget <= 0) {
      put('[omitted: size limit]');
      continue;
    }
    const leaf = copyLeaf(v, l.maxStringChars);
    if (leaf.done) {
      budget -= typeof leaf.value === 'string' ? leaf.value.length + 2 : 8;
      put(leaf.value);
      continue;
    }
    const obj = v as object;
    if (seen.has(obj)) {
      put('[omitted: cycle]');
      continue;
    }
    if (depth > l.maxDepth) {
      put(`[omitted: nested deeper than ${l.maxDepth} levels]`);
      budget -= 40;
      continue;
    }
    seen.add(obj);
    budget -= 2;
    try {
      if (Array.isArray(obj)) copyArray(obj, depth, put, jobs, l);
      else copyObject(obj, depth, put, jobs, l);
    } catch {
      put('[omitted: unreadable]');
    }
  }
  return root.v;
}

/** A value still to copy, and where its copy goes. */
interface CopyJob {
  readonly value: unknown;
  readonly depth: number;
  readonly put: (v: unknown) => void;
  /** Characters the member's key takes, counted when the member is reached (in order). */
  readonly cost?: number;
}

/**
 * Puts the copy of an array in place and queues its first `maxMembers` items (last first, so they
 * are copied in order). May throw (a proxy, a getter): boundedCopy catches it.
 */
function copyArray(
  obj: readonly unknown[],
  depth: number,
  put: (v: unknown) => void,
  jobs: CopyJob[],
  l: Required<CopyLimits>,
): void {
  const out: unknown[] = [];
  put(out);
  const n = Math.min(obj.length, l.maxMembers);
  for (let i = n - 1; i >= 0; i--) {
    const at = i;
    out.push(undefined);
    jobs.push({ value: obj[i], depth: depth + 1, put: (x) => (out[at] = x) });
  }
  if (obj.length > n) out[n] = `[omitted: ${obj.length - n} more items]`;
}

/**
 * Puts the copy of an object in place, its first `maxMembers` keys in their order, and queues their
 * values (last first). May throw (a proxy, a getter): boundedCopy catches it.
 */
function copyObject(
  obj: object,
  depth: number,
  put: (v: unknown) => void,
  jobs: CopyJob[],
  l: Required<CopyLimits>,
): void {
  const out: Record<string, unknown> = {};
  put(out);
  const keys = Object.keys(obj);
  const n = Math.min(keys.length, l.maxMembers);
  // A member named `__proto__` (JSON.parse makes it an own property) is defined, not assigned, so it
  // stays a member of the copy instead of setting the copy's prototype or vanishing; the others are
  // assigned (several times faster: this runs for every record a page fingerprints).
  const set = (key: string, x: unknown) => {
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: x, enumerable: true, writable: true, configurable: true });
    else out[key] = x;
  };
  for (let i = 0; i < n; i++) set(keys[i]!.slice(0, l.maxStringChars), null);
  for (let i = n - 1; i >= 0; i--) {
    const key = keys[i]!.slice(0, l.maxStringChars);
    jobs.push({
      value: (obj as Record<string, unknown>)[keys[i]!],
      depth: depth + 1,
      put: (x) => set(key, x),
      cost: key.length + 4,
    });
  }
  if (keys.length > n) out['…'] = `[omitted: ${keys.length - n} more fields]`;
}

function copyLeaf(v: unknown, maxStringChars: number): { done: boolean; value?: unknown } {
  switch (typeof v) {
    case 'string':
      return {
        done: true,
        value:
          v.length > maxStringChars
            ? `${v.slice(0, maxStringChars)}…[+${v.length - maxStringChars} chars]`
            : v,
      };
    case 'number':
      return { done: true, value: Number.isFinite(v) ? v : String(v) };
    case 'boolean':
      return { done: true, value: v };
    case 'bigint':
      return { done: true, value: v.toString() };
    case 'undefined':
      return { done: true, value: null };
    case 'object':
      return v === null ? { done: true, value: null } : { done: false };
    default:
      return { done: true, value: `[${typeof v}]` };
  }
}

/** JSON text of any value within the copy limits. Never throws. */
export function safeStringify(value: unknown, limits: CopyLimits = {}): string {
  try {
    return JSON.stringify(boundedCopy(value, limits)) ?? 'null';
  } catch {
    return '"[unserializable]"';
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * True when the string holds a lone UTF-16 surrogate (JSON can carry one as `\ud800`): UTF-8, and
 * so DynamoDB, hashes and HTTP, would turn it into U+FFFD, and two different strings would become one.
 */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}
