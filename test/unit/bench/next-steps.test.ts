/**
 * The report's next steps (bench/report/next-steps-section.ts): where the minute poll's CPU goes,
 * from the cost lines' run, and nothing for a report from before the figure (runs without pollCpu).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nextStepsSection } from '../../../bench/report/next-steps-section';
import type { BenchResults } from '../../../bench/report/results';

describe('nextStepsSection', () => {
  it("splits the poll's CPU into a fixed part and rows, and prices payment history's share", () => {
    // Prepare: the committed report, its cost run given a poll CPU line of 30 ms + 50 µs a row.
    const before = JSON.parse(readFileSync('docs/benchmarks.json', 'utf8')) as BenchResults;
    const seed = before.cost.seed;
    const runs = before.typical.runs.map((run) =>
      run.seed === seed
        ? {
            ...run,
            bySource: {
              paymentHistory: { polls: 100, requests: 150, rows: 30_000, events: 1 },
              visits: { polls: 100, requests: 100, rows: 10_000, events: 900 },
            },
            pollCpu: { polls: 100, meanMs: 50, fixedMs: 30, perRowMs: 0.05 },
          }
        : run,
    );
    const pollLine = before.cost.default.lines.find((l) => l.key === 'lambdaPollCompute')!;

    // Act
    const text = nextStepsSection({ ...before, typical: { ...before.typical, runs } });
    const withoutFit = before.typical.runs.map(({ pollCpu: _fit, ...run }) => run);
    const older = nextStepsSection({ ...before, typical: { ...before.typical, runs: withoutFit } });

    // Assess: 300 payment rows a poll × 0.05 ms = 15 ms of 50: 30% of the poll line.
    expect(text).toMatch(/50\.0 ms a poll on average/);
    expect(text).toMatch(/30\.0 ms whatever the poll reads/);
    expect(text).toMatch(/50 µs a row read/);
    expect(text).toMatch(/Payment history's rows are\s+75% of the rows read/);
    expect(text).toMatch(/about 30% of the poll's CPU/);
    expect(text).toContain(`$${(0.3 * pollLine.usd).toFixed(3)}`);
    expect(older).not.toMatch(/Where the minute poll's CPU goes/);
  });
});
