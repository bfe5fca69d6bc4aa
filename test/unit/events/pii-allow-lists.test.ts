/**
 * The allow-lists are the one definition of `minimal`: every documented API field is decided (in
 * an allow-list or in MINIMAL_DROPPED), nothing is both, nothing is allowed that the API does not
 * document, and the generated catalog page prints them.
 */
import { describe, expect, it } from 'vitest';
import { renderEventCatalogMarkdown } from '../../../cli/catalog-markdown';
import {
  type AllowList,
  CLASS_ATTENDANCE_ALLOWED,
  MINIMAL_ALLOW_LISTS,
  MINIMAL_DROPPED,
  RECORD_KIND_OF,
} from '../../../lambdas/events/pii-allow-lists';
import { API_SCHEMAS, type DocumentedKind, documentedPaths } from './pii-fixtures';

/** Dotted paths an allow-list lets through (`Items[].ItemId`), the same form as documentedPaths. */
function allowedPaths(list: AllowList, prefix = ''): string[] {
  return Object.entries(list).flatMap(([field, rule]) => {
    if (rule === 'value' || rule === 'url') return [`${prefix}${field}`];
    if (Array.isArray(rule)) return allowedPaths(rule[0] as AllowList, `${prefix}${field}[].`);
    return allowedPaths(rule as AllowList, `${prefix}${field}.`);
  });
}

const KINDS = Object.keys(API_SCHEMAS) as DocumentedKind[];
const sorted = (paths: readonly string[]) => [...paths].sort();

describe('PII allow-lists', () => {
  it.each(KINDS)('%s: every documented field is either allowed or dropped, never both', (kind) => {
    const allowed = allowedPaths(MINIMAL_ALLOW_LISTS[kind]);
    const dropped = MINIMAL_DROPPED[kind];
    expect(allowed.filter((path) => dropped.includes(path))).toEqual([]);
    expect(sorted([...allowed, ...dropped])).toEqual(sorted(documentedPaths(API_SCHEMAS[kind])));
  });

  it('class attendance allows its list of non-person field names, as values only', () => {
    expect(MINIMAL_ALLOW_LISTS.classAttendance).toEqual(
      Object.fromEntries(
        Object.values(CLASS_ATTENDANCE_ALLOWED).flatMap((names) => names.map((n) => [n, 'value'])),
      ),
    );
    // None of them names or contacts a person.
    for (const name of Object.keys(MINIMAL_ALLOW_LISTS.classAttendance))
      expect(name).not.toMatch(/(?<!Class)Name$|Email|Phone|Mobile|Address|Instructor|Birth|Note/);
  });

  it('the catalog page prints every allow-list and every dropped field (docs/events.md, "PII policy")', () => {
    const page = renderEventCatalogMarkdown();
    const section = page.slice(
      page.indexOf('\n## PII policy\n'),
      page.indexOf('\n## Member Visit Recorded\n'),
    );
    const rows = section.split('\n').filter((line) => line.startsWith('| '));
    for (const kind of KINDS) {
      const detailType = Object.entries(RECORD_KIND_OF).find(([, k]) => k === kind)?.[0] ?? '';
      const row = rows.find((line) => line.includes(detailType));
      expect(row, kind).toBeDefined();
      const [, , , travels = '', dropped = ''] = (row ?? '').split('|').map((cell) => cell.trim());
      expect(sorted(pathsOfCell(travels)), kind).toEqual(sorted(allowedPaths(MINIMAL_ALLOW_LISTS[kind])));
      expect(sorted(pathsOfCell(dropped)), kind).toEqual(sorted(MINIMAL_DROPPED[kind]));
    }
    for (const name of Object.values(CLASS_ATTENDANCE_ALLOWED).flat())
      expect(section).toContain(`\`${name}\``);
  });
});

/** The paths a table cell shows: `Number`, `Contact.{OptOutEmail, State}`, `Items[].{ItemId}`; 'none' is none. */
function pathsOfCell(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].flatMap(([, token = '']) => {
    const nested = /^(\w+(?:\[\])?)\.\{(.*)\}$/.exec(token);
    if (!nested) return [token];
    const [, parent, children = ''] = nested;
    return children.split(', ').map((child) => `${parent}.${child}`);
  });
}
