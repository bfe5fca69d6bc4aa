/**
 * The memory section of the bench report and its keys in docs/benchmarks.json
 * (bench/report/scale-section.ts, bench/report/raw-json.ts): the peak of the first poll of a full
 * batch at both record sizes, the budget and whether every run kept to it; a report of an earlier
 * run (no record sizes, CPU times or budget) renders as it did; keys a rendered JSON carries are
 * replaced by the ones computed from its figures.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { InvocationMemory, MemoryRun } from '../../../bench/invocation-memory';
import { rawJson } from '../../../bench/report/raw-json';
import type { BenchResults } from '../../../bench/report/results';
import { invocationMemoryPart } from '../../../bench/report/scale-section';

const REPORT = JSON.parse(
  readFileSync(new URL('../../../docs/benchmarks.json', import.meta.url), 'utf8'),
) as BenchResults & { memory?: unknown };

const run = (name: string, clubs: number, firstPoll: boolean, recordScale: number, rssPeakMb: number) =>
  ({
    name,
    clubs,
    firstPoll,
    recordScale,
    records: 1000,
    rssPeakMb,
    wallSec: 10,
    cpuSec: 5,
  }) satisfies MemoryRun;

const memory: InvocationMemory = {
  functionMb: 256,
  oldSpaceMb: 230,
  semiSpaceMb: 12,
  batchSize: 20,
  heavySlots: 1,
  club: { members: 3000, historyDays: 30 },
  runs: [
    run('first poll of a full batch', 20, true, 1, 171.04),
    run('the next poll of that batch', 20, false, 1, 166),
    run('first poll of half a batch', 10, true, 1, 175),
    run('first poll of a full batch, records 2x', 20, true, 2, 172.26),
    run('the next poll of that batch, records 2x', 20, false, 2, 180),
  ],
  budgetMb: 192,
  measured: { date: '2026-11-29T00:00:00.000Z', commit: 'abc1234', loadAverage: [3.2, 2.9] },
};

const withMemory = (m: InvocationMemory | undefined): BenchResults =>
  ({ ...REPORT, scale: { ...REPORT.scale, invocationMemory: m } }) as BenchResults;

/** This release's runs: the poll function's bundle, with the CLI's for comparison. */
const functionMemory: InvocationMemory = {
  ...memory,
  oldSpaceMb: 231,
  runs: [
    ...memory.runs.map((r) => ({
      ...r,
      bundle: 'function' as const,
      atPeak: { heapTotalMb: 86, heapUsedMb: 53.2, externalMb: 7 },
    })),
    { ...run('first poll of a full batch, records 2x, the CLI', 20, true, 2, 201), bundle: 'cli' as const },
  ],
};

describe('the memory of a poll invocation in the report', () => {
  it("keys and budget come from the poll function's runs, the CLI's run shown for comparison only", () => {
    const json = JSON.parse(rawJson(withMemory(functionMemory))) as { memory: Record<string, number> };
    expect(json.memory.firstBatchDoubleRecordsPeakRssMb).toBe(172.3);
    const text = invocationMemoryPart(withMemory(functionMemory));
    expect(text).toContain('the poll function as Lambda runs it');
    expect(text).toContain('`--max-old-space-size=231 --max-semi-space-size=12`, `--expose-gc`');
    expect(text).toContain(
      '| first poll of a full batch | 20 | 1,000 | 171 MB | 67% | 86 MB (53 in use) | 10.0 s | 5.0 s |',
    );
    expect(text).toContain(
      '| first poll of a full batch, records 2x, the CLI | 20 | 1,000 | 201 MB | 79% | n/a |',
    );
    expect(text).toContain('The run marked "the CLI"');
    expect(text).toContain('every run kept to it.');
  });

  it('writes the first batch peaks at both record sizes as keys, replacing any the JSON carried', () => {
    const stale = { ...withMemory(memory), memory: { firstBatchPeakRssMb: 999 } } as BenchResults;
    const json = JSON.parse(rawJson(stale)) as { memory: Record<string, number> };
    expect(json.memory).toEqual({
      functionMb: 256,
      budgetMb: 192,
      firstBatchPeakRssMb: 171,
      firstBatchDoubleRecordsPeakRssMb: 172.3,
    });
    expect(Object.keys(json).indexOf('memory')).toBeLessThan(Object.keys(json).indexOf('plan'));
  });

  it('writes no memory keys for a run without both record sizes', () => {
    const single = { ...memory, runs: memory.runs.filter((r) => r.recordScale === 1) };
    const { memory: _stale, ...report } = REPORT;
    const json = JSON.parse(rawJson({ ...report, scale: { ...report.scale, invocationMemory: single } }));
    expect(json.memory).toBeUndefined();
  });

  it('renders every run, the CPU time, the load, and the budget kept or not', () => {
    const text = invocationMemoryPart(withMemory(memory));
    expect(text).toContain(
      '| first poll of a full batch, records 2x | 20 | 1,000 | 172 MB | 67% | 10.0 s | 5.0 s |',
    );
    expect(text).toContain('load average\n3.2 before the step and 2.9 after it');
    expect(text).toContain('The budget is 192 MB');
    expect(text).toContain('every run kept to it.');
    const over = { ...memory, runs: [...memory.runs, run('first poll of a full batch', 20, true, 1, 200)] };
    expect(invocationMemoryPart(withMemory(over))).toContain('**not kept**: 200 MB');
  });

  it('renders an earlier run as it did: no CPU column, no budget', () => {
    const earlier = {
      ...memory,
      runs: memory.runs.slice(0, 3).map(({ recordScale: _s, cpuSec: _c, ...r }) => r),
    } as InvocationMemory;
    delete (earlier as { budgetMb?: number }).budgetMb;
    delete (earlier as { measured?: unknown }).measured;
    const text = invocationMemoryPart(withMemory(earlier));
    expect(text).toContain('| run | clubs | records read | RSS peak | of 256 MB | wall time |\n');
    expect(text).not.toContain('budget');
    expect(text).not.toContain('records 2x');
  });
});
