/**
 * Client-side checks of a list query before anything is sent: only the parameters the operation
 * takes (per OPERATIONS), date-times in the seed's pattern and on the calendar, a known status.
 * Also the compile-time shape of each operation's query.
 */
import { BadRequestError } from './errors';
import { MAX_PAGE_SIZE, type OperationName, type OperationSpec, type Operations } from './operations';
import { DATE_TIME_PATTERN } from './schemas';

type ParamsOf<N extends OperationName> = Operations[N]['params'][number];
type StatusOf<N extends OperationName> = Operations[N] extends { readonly statuses: readonly (infer S)[] }
  ? S
  : never;

/**
 * The filters an operation takes: `fromdate` everywhere, `updatedate` only on members, `status`
 * (typed to the operation's enumeration) only where the operation allows it. Paging is in PageOptions.
 */
export type QueryOf<N extends OperationName> = { fromdate?: string } & ('updatedate' extends ParamsOf<N>
  ? { updatedate?: string }
  : unknown) &
  ('status' extends ParamsOf<N> ? { status?: StatusOf<N> } : unknown);

const FILTERS = ['fromdate', 'updatedate', 'status'] as const;
type Filter = (typeof FILTERS)[number];

/** True for a seed-pattern date-time that also exists on the calendar (no month 13, no Feb 30). */
export function isValidDateTime(value: string): boolean {
  if (!DATE_TIME_PATTERN.test(value)) return false;
  const [y, mo, d, h, mi, s] = [0, 5, 8, 11, 14, 17].map((at, i) =>
    Number(value.slice(at, at + (i === 0 ? 4 : 2))),
  );
  if (y === undefined || mo === undefined || d === undefined) return false;
  if (h === undefined || mi === undefined || s === undefined) return false;
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return false;
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d <= daysInMonth;
}

/**
 * Checks `query` against the operation and returns its filters as ordered [name, value] pairs.
 * Throws BadRequestError naming the parameter on the first problem.
 */
export function validateQuery(spec: OperationSpec, query: unknown): [Filter, string][] {
  const operation = spec.name;
  if (query === undefined || query === null) return [];
  if (typeof query !== 'object' || Array.isArray(query)) {
    throw new BadRequestError(`${operation}: query must be an object`, { operation });
  }
  const entries = Object.entries(query as Record<string, unknown>).filter(([, v]) => v !== undefined);
  const allowed = spec.params.filter((p): p is Filter => (FILTERS as readonly string[]).includes(p));
  const out: [Filter, string][] = [];
  for (const [name, value] of entries) {
    if (name === 'offset' || name === 'limit') {
      throw new BadRequestError(
        `${operation}: '${name}' is not a filter; use the pageSize/startOffset options to page`,
        { operation },
      );
    }
    if (!(allowed as string[]).includes(name)) {
      throw new BadRequestError(
        `${operation}: does not take the query parameter '${name}' (it takes: ${allowed.join(', ')})`,
        { operation },
      );
    }
    const filter = name as Filter;
    if (typeof value !== 'string') {
      throw new BadRequestError(`${operation}: ${filter} must be a string, got ${typeof value}`, {
        operation,
      });
    }
    if (filter === 'status') {
      if (!spec.statuses?.includes(value)) {
        throw new BadRequestError(
          `${operation}: status '${value.slice(0, 40)}' is not one of ${spec.statuses?.join(', ') ?? '(none)'}`,
          { operation },
        );
      }
    } else if (!isValidDateTime(value)) {
      throw new BadRequestError(
        `${operation}: ${filter} '${value.slice(0, 40)}' must be a date-time YYYY-MM-DDTHH:mm:ss[.fff] with no offset or Z`,
        { operation },
      );
    }
    out.push([filter, value]);
  }
  return out.sort((a, b) => FILTERS.indexOf(a[0]) - FILTERS.indexOf(b[0]));
}

/** Page size: an integer 1..500. */
export function validatePageSize(operation: string, pageSize: unknown): number {
  if (
    typeof pageSize !== 'number' ||
    !Number.isInteger(pageSize) ||
    pageSize < 1 ||
    pageSize > MAX_PAGE_SIZE
  ) {
    throw new BadRequestError(`${operation}: pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}`, {
      operation,
    });
  }
  return pageSize;
}

/** Start offset: an integer 0..2^31-1 (the seed's offset is int32). */
export function validateOffset(operation: string, offset: unknown): number {
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0 || offset > INT32_MAX) {
    throw new BadRequestError(`${operation}: startOffset must be an integer from 0 to ${INT32_MAX}`, {
      operation,
    });
  }
  return offset;
}

export const INT32_MAX = 2 ** 31 - 1;

/** {base}{path}?<filters>&offset=..&limit=.. */
export function pageUrl(
  baseUrl: string,
  spec: OperationSpec,
  filters: readonly [string, string][],
  offset: number,
  limit: number,
): string {
  const params = new URLSearchParams([...filters, ['offset', String(offset)], ['limit', String(limit)]]);
  return `${baseUrl}${spec.path}?${params.toString()}`;
}
