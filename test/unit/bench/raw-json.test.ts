/**
 * docs/benchmarks.json (bench/report/raw-json.ts): the keys compared run to run are made from the
 * figures, also when the figures were read back from a benchmarks.json (`--render`, `--only`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rawJson } from '../../../bench/report/raw-json';
import type { BenchResults } from '../../../bench/report/results';

describe('rawJson', () => {
  it('makes lifecycleAdded from the lifecycle figures, not from the keys a report read back carried', () => {
    // Prepare: the committed report, its lifecycle figures measured again (as --only lifecycle does).
    const before = JSON.parse(readFileSync('docs/benchmarks.json', 'utf8')) as BenchResults;
    const lifecycle = {
      ...before.lifecycle!,
      usd: { ...before.lifecycle!.usd, total: 0.0123, totalBound: 0.0234 },
    };

    // Act
    const written = JSON.parse(rawJson({ ...before, lifecycle })) as Record<string, unknown>;

    // Assess
    expect(written.lifecycleAdded).toMatchObject({
      addedCostPerClubMonthUsd: 0.0123,
      addedCostPerClubMonthUsdBound: 0.0234,
    });
    expect(Object.keys(written).slice(0, 6)).toEqual([
      'costPerClubMonthUsd',
      'freshness',
      'quota',
      'cpuCalibration',
      'memory',
      'lifecycleAdded',
    ]);
  });
});
