/**
 * Shared by the late-qualifier tests (late-qualifiers-windows.test.ts, late-qualifiers-visits.test.ts):
 * a Sydney club whose tracking begins 2026-06-01T10:00 local, an evaluation's input with its
 * defaults, a change read at a time, a readable list of facts, and `later`: the baseline, then one
 * evaluation of what changed.
 */
import {
  evaluateLifecycle,
  type FactChange,
  type LifecycleFact,
  type LifecycleInput,
} from '../../../lambdas/lifecycle/evaluate';
import type { MemberFacts, ProspectFacts } from '../../../lambdas/lifecycle/rules';

export const HOUR = 3_600_000;
export const MINUTE = 60_000;
export const DAY = 24 * HOUR;
// Sydney in June: UTC+10. Tracking begins 2026-06-01T10:00 local.
const ZONE = 'Australia/Sydney';
export const T0 = Date.parse('2026-06-01T00:00:00Z');
export const SETTINGS = { inactiveDays: 14, expiringDays: 2, trialEndingHours: 24 };
export const OLD_START = '2025-01-01T00:00:00';

export const input = (over: Partial<LifecycleInput>): LifecycleInput => ({
  doc: undefined,
  nowMs: T0,
  zone: ZONE,
  settings: SETTINGS,
  members: new Map<string, MemberFacts>(),
  prospects: new Map<string, ProspectFacts>(),
  visits: new Map(),
  payments: new Map(),
  ...over,
});
export const change = (atMs: number, ...fields: string[]): FactChange => ({ atMs, fields });
export const kinds = (facts: readonly LifecycleFact[]) =>
  facts.map((f) => `${'member' in f ? f.member : f.prospect} ${f.fact === 'due' ? f.found.rule : f.fact}`);

/** The baseline of `members` and `prospects`, then one evaluation at `atMs` of what changed. */
export function later(
  before: { members?: [string, MemberFacts][]; prospects?: [string, ProspectFacts][] },
  after: {
    atMs: number;
    members?: [string, MemberFacts][];
    prospects?: [string, ProspectFacts][];
    changes?: LifecycleInput['changes'];
    visits?: LifecycleInput['visits'];
  },
  history?: { from: string; visits: [string, string[]][] },
) {
  const first = evaluateLifecycle(
    input({
      members: new Map(before.members ?? []),
      prospects: new Map(before.prospects ?? []),
      ...(history ? { historyFrom: history.from, visits: new Map(history.visits) } : {}),
    }),
  );
  const next = evaluateLifecycle(
    input({
      doc: first.doc,
      nowMs: after.atMs,
      members: new Map(after.members ?? before.members ?? []),
      prospects: new Map(after.prospects ?? before.prospects ?? []),
      ...(after.changes ? { changes: after.changes } : {}),
      ...(after.visits ? { visits: after.visits } : {}),
    }),
  );
  return { first, next };
}
