import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      '@gym-bridge/events': fileURLToPath(new URL('./event-tooling/consumer.ts', import.meta.url)),
      '@gym-bridge/cdk': fileURLToPath(new URL('./lib/consumer-cdk.ts', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // A hang fails after 90 s; the engine's integration tests take up to 30 s alone and twice that
    // on two cores another process keeps busy (issue 34: the suite passes under load).
    testTimeout: 90_000,
    // A CDK file synthesizes its stacks once in beforeAll: ~10 s alone, over 30 s on two busy cores.
    hookTimeout: 120_000,
    pool: 'forks',
    // Files share their worker's packages (the AWS SDK, aws-cdk-lib, zod: a third of the suite's CPU
    // went to loading them again for every file); vitest.setup.ts starts the project's own modules
    // afresh in each file and restores timers and env. A file that mocks an SDK client (prototype
    // patch) restores it in afterAll, or the next file of the worker gets the mock.
    isolate: false,
    // vitest's default is one worker less than the cores: on CI's 2 cores, one file at a time,
    // though most files wait on child processes and sockets. Every core: ~40% less wall time there.
    maxWorkers: Math.max(2, availableParallelism()),
    setupFiles: ['./vitest.setup.ts'],
    globalSetup: ['./test/global-setup.ts'],
    reporters: ['default'],
  },
});
