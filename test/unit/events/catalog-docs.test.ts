import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CliUsageError } from '../../../cli/args';
import { exampleRulePattern, renderEventCatalogMarkdown } from '../../../cli/catalog-markdown';
import { run } from '../../../cli/commands/schemas';
import { exampleEvents } from '../../../event-tooling/examples';
import { ALL_DETAIL_TYPES, DEFAULT_EVENT_SOURCE, detailTypeFileName } from '../../../lambdas/events/catalog';

/** The subset of EventBridge pattern matching the documented examples use. */
function matches(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) {
    return pattern.some((p) => {
      if (typeof p !== 'object' || p === null) return p === value;
      if ('prefix' in p) return typeof value === 'string' && value.startsWith(String(p.prefix));
      if ('numeric' in p) {
        const [op, bound] = p.numeric as [string, number];
        if (typeof value !== 'number') return false;
        return (
          {
            '>': value > bound,
            '>=': value >= bound,
            '<': value < bound,
            '<=': value <= bound,
            '=': value === bound,
          }[op] ?? false
        );
      }
      return false;
    });
  }
  if (typeof pattern === 'object' && pattern !== null) {
    if (typeof value !== 'object' || value === null) return false;
    return Object.entries(pattern).every(([k, p]) => matches(p, (value as Record<string, unknown>)[k]));
  }
  return false;
}

let out: string[];
let dir: string;
beforeEach(async () => {
  out = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out.push(String(chunk));
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  dir = await mkdtemp(join(tmpdir(), 'gym-bridge-schemas-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

describe('generated event catalog (docs/events.md)', () => {
  it('the committed page equals the generator output (run `schemas --catalog docs/events.md`)', async () => {
    const committed = await readFile(join(process.cwd(), 'docs', 'events.md'), 'utf8');
    expect(committed).toBe(renderEventCatalogMarkdown());
  });

  it('has a section, an example detail and a rule pattern per event', () => {
    const page = renderEventCatalogMarkdown();
    for (const detailType of ALL_DETAIL_TYPES) {
      expect(page).toContain(`\n## ${detailType}\n`);
      expect(page).toContain(`"detail-type": ["${detailType}"]`);
      expect(page).toContain(exampleEvents()[detailType].detail.eventId);
    }
    expect(page).toContain('## Payment classification');
  });

  it.each(ALL_DETAIL_TYPES)('the example rule for %s matches its example event', (detailType) => {
    const example = exampleEvents()[detailType];
    const event = { source: DEFAULT_EVENT_SOURCE, 'detail-type': detailType, detail: example.detail };
    expect(matches(exampleRulePattern(detailType), event)).toBe(true);
    expect(matches(exampleRulePattern(detailType), { ...event, source: 'someone-else' })).toBe(false);
  });
});

describe('schemas command', () => {
  it('without --out prints one JSON object of draft-04 schemas keyed by detail-type', async () => {
    expect(await run([])).toBe(0);
    const printed = JSON.parse(out.join('')) as Record<string, { $schema: string; title: string }>;
    expect(Object.keys(printed)).toEqual(ALL_DETAIL_TYPES);
    for (const [detailType, schema] of Object.entries(printed)) {
      expect(schema.$schema).toBe('http://json-schema.org/draft-04/schema#');
      expect(schema.title).toBe(detailType);
    }
  });

  it('with --out writes one <kebab-name>.json per event and lists them', async () => {
    expect(await run(['--out', dir])).toBe(0);
    const files = (await readdir(dir)).sort();
    expect(files).toEqual(ALL_DETAIL_TYPES.map((t) => `${detailTypeFileName(t)}.json`).sort());
    expect(out.join('').trim().split('\n')).toHaveLength(ALL_DETAIL_TYPES.length);
    const schema = JSON.parse(await readFile(join(dir, 'member-status-changed.json'), 'utf8'));
    expect(schema.properties.status.type).toBe('string');
  });

  it('with --catalog writes the Markdown page, keeping stdout parseable JSON', async () => {
    const page = join(dir, 'docs', 'events.md');
    expect(await run(['--catalog', page])).toBe(0);
    expect(await readFile(page, 'utf8')).toBe(renderEventCatalogMarkdown());
    expect(() => JSON.parse(out.join(''))).not.toThrow();
  });

  it('refuses unknown flags as a usage error', async () => {
    await expect(run(['--format', 'yaml'])).rejects.toBeInstanceOf(CliUsageError);
  });
});
