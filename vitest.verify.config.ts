// `npm run verify:consumer`: checks too slow for `npm test` (test/verify/*.verify.ts). Today one:
// the packed consumer packages installed in a project outside the repository (about 45 s of CPU:
// two package builds with tsc, tsc over aws-cdk-lib, a synth). It imports no `@gym-bridge/*`
// alias: the project it builds resolves the packages itself.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/verify/**/*.verify.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
