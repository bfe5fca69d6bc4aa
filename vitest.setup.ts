import { afterAll, vi } from 'vitest';

// The SDK's Node-20 end-of-support notice is noise in test output (Lambda runs Node 22).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// Test files share a worker process (vitest.config.ts `isolate: false`): the packages they load
// (the AWS SDK, aws-cdk-lib, zod, Powertools) are evaluated once a worker, but the project's own
// modules start afresh in every file, so that no singleton (the logger with a Lambda context, the
// redaction registry, caches) carries one file's state into the next.
vi.resetModules();

afterAll(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});
