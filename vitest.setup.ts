import { afterAll, vi } from 'vitest';

// The SDK's Node-20 end-of-support notice is noise in test output (Lambda runs Node 22).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// Test files share a worker process (vitest.config.ts `isolate: false`): the packages they load
// (the AWS SDK, aws-cdk-lib, zod, Powertools) are evaluated once a worker, but the project's own
// modules start afresh in every file, so that no singleton (the logger with a Lambda context, the
// redaction registry, caches) carries one file's state into the next.
vi.resetModules();

// The worker's real timers and clock, kept from its first file (vitest's own are untouched then).
const CLOCK_NAMES = [
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'setImmediate',
  'clearImmediate',
  'Date',
] as const;
type Clock = Pick<typeof globalThis, (typeof CLOCK_NAMES)[number]>;
const shared = globalThis as typeof globalThis & { __gymBridgeRealClock?: Clock };
shared.__gymBridgeRealClock ??= Object.fromEntries(
  CLOCK_NAMES.map((name) => [name, globalThis[name]]),
) as Clock;

afterAll(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  // A file that leaves a fake timer or clock behind (e.g. a spy laid over fake timers and restored
  // after them) stops every later file of the worker: each then waits out its timeout. Put the real
  // ones back, and fail the file that left them, by name.
  const real = shared.__gymBridgeRealClock!;
  const left = (Object.keys(real) as (keyof Clock)[]).filter((name) => globalThis[name] !== real[name]);
  if (left.length === 0) return;
  Object.assign(globalThis, real);
  throw new Error(
    `this file left a fake ${left.join(', ')} behind (restore spies before vi.useRealTimers())`,
  );
});
