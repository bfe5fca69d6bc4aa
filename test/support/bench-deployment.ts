/**
 * What the bench's unit tests price: prod-like deployment settings (a test overrides what it varies),
 * a club's month of counts and a fleet share.
 */
import type { MonthlyClubCounts } from '../../bench/cost';
import type { DeploymentSettings } from '../../bench/deployment';

/** A club's month, round figures. */
export const SAMPLE_CLUB_COUNTS: MonthlyClubCounts = {
  pollInvocations: 1000,
  pollLocalMs: 5000,
  apiRequests: 2000,
  criticalApiRequests: 1200,
  tokenRequests: 10,
  pollStoreRequests: 10_000,
  putEventsRequests: 100,
  secretsCalls: 50,
  readUnits: 1_000_000,
  writeUnits: 200_000,
  billedEvents: 5000,
  eventBytes: 5e6,
  sqsMessages: 1000,
  emfBytes: 1e6,
  logBytes: 1e6,
  perClubMetrics: 0,
  storedBytes: 1e9,
};

/** The club's share of the fleet-wide work. */
export const SAMPLE_SHARE = { cpuMsPerClub: 0.1, requestsPerClub: 0.01, logBytesPerRun: 600 };

export function benchDeployment(
  overrides: {
    poll?: Partial<DeploymentSettings['poll']>;
    fixed?: Partial<DeploymentSettings['fixed']>;
  } = {},
): DeploymentSettings {
  return {
    stage: 'prod',
    dispatch: { memoryMb: 256, architecture: 'arm64', timeoutSec: 50 },
    poll: { memoryMb: 1024, architecture: 'arm64', timeoutSec: 120, ...overrides.poll },
    scheduleRateMinutes: 1,
    pollBatchSize: 1,
    pollMaxConcurrency: 10,
    handlersPresent: true,
    fixed: {
      alarms: 7,
      dashboards: 1,
      kmsKeys: 1,
      tablePitr: true,
      archiveRetentionDays: 365,
      logRetentionDays: 90,
      ...overrides.fixed,
    },
  };
}
