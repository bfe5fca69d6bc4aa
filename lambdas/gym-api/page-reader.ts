/**
 * Reading one page: the body as int64-safe JSON, the envelope {href, next, data}, and each item
 * validated on its own (a bad item is reported, not fatal; a record past the limits is an invalid
 * item with a cut copy). Whether the page answers its request and paging moves forward is checked
 * in paging-checks.ts.
 */
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { boundedCopy, measureValue, RECORD_LIMITS, safeStringify } from '../common/bounded-value';
import { FINGERPRINT_CHARS, InvalidResponseError } from './errors';
import { parseJsonPreservingInt64 } from './json';
import type { ItemOf, OperationName, OperationSpec } from './operations';
import { PageEnvelopeSchema } from './protocol-schemas';
import { describeBody } from './upstream-message';

/** An item that failed its schema: kept raw for quarantine, with the failing field paths. */
export interface InvalidItem {
  /** Index in this page's `data`. */
  readonly index: number;
  readonly raw: unknown;
  /** e.g. `data[3].Membership.StartDate: date-time must match ...; data[3].Contact.Email: ...` */
  readonly issues: string;
  /**
   * The record was past the limits: `raw` is a cut copy, which may not tell two such records apart
   * (the engine counts rows by their raw records only when they are whole).
   */
  readonly cut?: true;
  /**
   * What the row is counted under when `raw` is cut: a record past the limits, or over the
   * response cap, is known by a fingerprint of its first 16 KB, so the same record read or skipped
   * at two offsets (drift, an unstable order) shows as a row read twice and the row it pushed out
   * is not lost.
   */
  readonly rowIdentity?: string;
}

export interface Page<N extends OperationName> {
  /** Offset this page was requested at. */
  readonly offset: number;
  /** Limit this page was requested with. */
  readonly limit: number;
  /** The items that passed validation, in upstream order. */
  readonly items: ItemOf<N>[];
  readonly invalid: InvalidItem[];
  /** Number of entries in `data` (valid + invalid). */
  readonly rawCount: number;
  readonly next?: string;
  readonly href?: string;
}

export interface Envelope {
  readonly href?: string;
  readonly next?: string;
  readonly data: unknown[];
}

const MAX_ISSUES_PER_ITEM = 5;

/**
 * The envelope of a page's body. `clean` sees the parsed body before anything else reads it (the
 * client removes echoed credentials there, in place).
 */
export function parseEnvelope(
  operation: string,
  body: string,
  contentType: string | null,
  status: number,
  clean?: (parsed: unknown) => void,
): Envelope {
  let parsed: unknown;
  try {
    parsed = parseJsonPreservingInt64(body);
  } catch {
    // No `cause`: the parser's message quotes the body's first characters, which may be a credential.
    throw new InvalidResponseError(
      `${operation}: response is not JSON or is truncated (${describeBody(body, contentType)})`,
      { operation, status },
    );
  }
  clean?.(parsed);
  const result = PageEnvelopeSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : 'data';
    throw new InvalidResponseError(
      `${operation}: response is not a page envelope {href, next, data[]} (${path}: ${issue?.message ?? 'invalid'})`,
      { operation, status, path },
    );
  }
  const { href, next, data } = result.data;
  return {
    data,
    ...(typeof href === 'string' && href !== '' ? { href } : {}),
    ...(typeof next === 'string' && next !== '' ? { next } : {}),
  };
}

export function readPage<N extends OperationName>(
  spec: OperationSpec,
  envelope: Envelope,
  offset: number,
  limit: number,
): Page<N> {
  const items: ItemOf<N>[] = [];
  const invalid: InvalidItem[] = [];
  envelope.data.forEach((raw, index) => {
    const tooBig = recordLimitIssue(index, raw);
    if (tooBig) {
      invalid.push({
        index,
        raw: boundedCopy(raw),
        issues: tooBig,
        cut: true,
        rowIdentity: cutFingerprint(spec.name, raw),
      });
      return;
    }
    const result = spec.itemSchema.safeParse(raw);
    if (result.success) items.push(result.data as ItemOf<N>);
    else invalid.push({ index, raw, issues: formatIssues(index, result.error.issues) });
  });
  return {
    offset,
    limit,
    items,
    invalid,
    rawCount: envelope.data.length,
    ...(envelope.next === undefined ? {} : { next: envelope.next }),
    ...(envelope.href === undefined ? {} : { href: envelope.href }),
  };
}

/**
 * What a record past the limits is counted under (InvalidItem.rowIdentity): a digest of its first
 * 16 KB as JSON, written by an iterative walk (any depth). The same record read twice by drift
 * agrees; two records agree only when their first 16 KB do.
 */
function cutFingerprint(operation: string, raw: unknown): string {
  const start = safeStringify(raw, { maxChars: FINGERPRINT_CHARS });
  return `oversized|${operation}|${createHash('sha256').update(start).digest('base64url')}`;
}

/**
 * Why a record is past RECORD_LIMITS (common/bounded-value.ts), or undefined. Such a record is an
 * invalid item (quarantined with a cut copy), so nothing after the client meets a value deeper or
 * larger than the limits.
 */
function recordLimitIssue(index: number, raw: unknown): string | undefined {
  const measure = measureValue(raw, RECORD_LIMITS);
  if (measure.exceeded === 'depth') {
    return `data[${index}].${measure.path}: nested deeper than ${RECORD_LIMITS.maxDepth} levels (records past that are not carried)`;
  }
  if (measure.exceeded === 'bytes') {
    return `data[${index}]: record over ${RECORD_LIMITS.maxBytes / 1024} KB as JSON (at ${measure.path}); records past that are not carried`;
  }
  return undefined;
}

/** `data[3].Membership.StartDate: message` for each issue, `; `-separated. */
export function formatIssues(index: number, issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, MAX_ISSUES_PER_ITEM).map((issue) => {
    const path = issue.path
      .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
      .join('');
    return `data[${index}]${path}: ${issue.message}`;
  });
  const more = issues.length - shown.length;
  return more > 0 ? `${shown.join('; ')}; (+${more} more)` : shown.join('; ');
}
