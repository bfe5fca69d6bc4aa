/**
 * The large values of poison mode, built once per process and shared by every record and
 * response that uses them (strings are immutable, buffers are never written after creation): a
 * page with a 3 MB field costs a copy into the response, never a rebuild.
 */
import { RawJson } from '../json-output';

export const KB = 1024;
export const MB = 1024 * KB;

/** Nesting depth of the deep unknown fields. */
export const DEEP_NESTING = 6000;

const memo = <T>(build: () => T): (() => T) => {
  let value: T | undefined;
  return () => {
    value ??= build();
    return value;
  };
};

const FILLER = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. ';

/** `bytes` of ASCII text (so characters = bytes), no character that JSON escapes. */
function text(bytes: number): string {
  return FILLER.repeat(Math.ceil(bytes / FILLER.length)).slice(0, bytes);
}

/** Kept as JSON text: a page splices it in instead of escaping 3 MB on every request. */
const oversized = {
  '300k': memo(() => new RawJson(JSON.stringify(text(300 * KB)))),
  '3m': memo(() => new RawJson(JSON.stringify(text(3 * MB)))),
};

/** A string field value of 300 KB or 3 MB (written as a JSON string). */
export function oversizedText(size: '300k' | '3m'): RawJson {
  return oversized[size]();
}

/** `{"N":{"N":...{}...}}`, 6,000 objects deep (36 KB). */
const deepObjects = memo(
  () => new RawJson(`${'{"N":'.repeat(DEEP_NESTING - 1)}{}${'}'.repeat(DEEP_NESTING - 1)}`),
);
/** `[[[...]]]`, 6,000 arrays deep (12 KB). */
const deepArrays = memo(() => new RawJson(`${'['.repeat(DEEP_NESTING)}${']'.repeat(DEEP_NESTING)}`));
/** `[{"Items":[{"Items":...}]}]`, objects and arrays alternating, 6,000 levels. */
const deepMixed = memo(
  () => new RawJson(`${'[{"Items":'.repeat(DEEP_NESTING / 2 - 1)}[{}]${'}]'.repeat(DEEP_NESTING / 2 - 1)}`),
);

export type DeepShape = 'objects' | 'arrays' | 'mixed';

export function deepValue(shape: DeepShape): RawJson {
  return shape === 'objects' ? deepObjects() : shape === 'arrays' ? deepArrays() : deepMixed();
}

export const CHUNK_BYTES = 64 * KB;

const chunks = {
  letters: memo(() => Buffer.from(text(CHUNK_BYTES), 'latin1')),
  spaces: memo(() => Buffer.alloc(CHUNK_BYTES, 0x20)),
};

/** A 64 KB buffer of filler letters or of spaces, shared: callers must not write to it. */
export function fillerChunk(kind: 'letters' | 'spaces'): Buffer {
  return chunks[kind]();
}
