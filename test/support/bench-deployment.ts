/** The deployment settings the bench's unit tests price with (prod-like; a test overrides what it varies). */
import type { DeploymentSettings } from '../../bench/deployment';

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
