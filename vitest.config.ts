import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: { '@gym-bridge/events': fileURLToPath(new URL('./lambdas/events/consumer.ts', import.meta.url)) },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    setupFiles: ['./vitest.setup.ts'],
    reporters: ['default'],
  },
});
