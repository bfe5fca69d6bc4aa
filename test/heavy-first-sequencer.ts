/**
 * vitest's file order (vitest.config.ts `sequence.sequencer`): the known long files first, heaviest
 * first, then the rest in vitest's own order (the longest of the last run first, or on a fresh
 * clone, with no results cached, the largest file first).
 *
 * Workers take files from one queue, so a long file that happens to come last runs alone while
 * the other workers are idle: on a fresh clone (CI) vitest ordered by size, and the chaos profile,
 * a small file that runs for over a minute, often started among the last. Starting the long files
 * first lets the many short ones fill the workers around them.
 *
 * The seconds are what each file took in a full run on two cores (only their order matters); a
 * file that grows past ~15 s belongs here, and a renamed or removed one simply no longer matches.
 */
import { relative } from 'node:path';
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/** Seconds a full run on two cores spent in each long file (relative to the repository). */
export const HEAVY_FILES: Readonly<Record<string, number>> = {
  'test/chaos/chaos.test.ts': 75,
  'test/integration/cli/local-aws.test.ts': 70,
  'test/integration/engine/end-to-end.test.ts': 68,
  'test/examples/payment-issue-notifier/compiles-alone.test.ts': 60,
  'test/integration/cli/stop-signals.test.ts': 59,
  'test/integration/events/sample-events.test.ts': 55,
  'test/integration/cli/events-command.test.ts': 51,
  'test/integration/handlers/clubs-cli.test.ts': 48,
  'test/cdk/synth.test.ts': 45,
  'test/integration/cli/first-contact.test.ts': 44,
  'test/integration/hostile/everything-at-once.test.ts': 43,
  'test/examples/payment-issue-notifier/readme-steps.test.ts': 37,
  'test/integration/cli/webhooks-local-stack.test.ts': 35,
  'test/integration/lifecycle/lifecycle-noted.test.ts': 34,
  'test/integration/cli/poll-command.test.ts': 33,
  'test/examples/payment-issue-notifier/infra.test.ts': 32,
  'test/integration/cli/explain-lifecycle.test.ts': 31,
  'test/integration/cli/webhooks-deployed.test.ts': 29,
  'test/integration/event-tooling/events-package.test.ts': 27,
  'test/integration/lifecycle/lifecycle-occurred-at.test.ts': 26,
  'test/integration/lifecycle/lifecycle-poll.test.ts': 25,
  'test/integration/cli/webhooks-listen-start.test.ts': 19,
  'test/integration/engine/sweep-slots.test.ts': 18,
  'test/integration/cli/explain-command.test.ts': 17,
  'test/integration/delivery/http-attempt.test.ts': 16,
  'test/integration/engine/backfill.test.ts': 15,
  'test/cdk/gym-bridge-stack.test.ts': 15,
  'test/integration/handlers/handlers.test.ts': 14,
};

/** The files in HEAVY_FILES' order (heaviest first), then the others in `rest`'s order. */
export function heavyFirst<T>(files: readonly T[], name: (file: T) => string, rest: readonly T[]): T[] {
  const weight = (file: T) => HEAVY_FILES[name(file)] ?? 0;
  const heavy = files.filter((f) => weight(f) > 0).sort((a, b) => weight(b) - weight(a));
  return [...heavy, ...rest.filter((f) => weight(f) === 0)];
}

export default class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const name = (spec: TestSpecification) =>
      relative(spec.project.config.root, spec.moduleId).split('\\').join('/');
    return heavyFirst(files, name, await super.sort(files));
  }
}
