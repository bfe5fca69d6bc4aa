/**
 * The bridge's own metrics as CloudWatch metrics: every one is service-wide (namespace
 * `METRICS_NAMESPACE`, dimension `service` only), so alarms and graphs read the whole fleet and the
 * metric bill does not grow with the number of clubs.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { METRICS_NAMESPACE } from '../../../lambdas/common/deployment-contract';

/** The period of the alarms and graphs unless one needs another. */
export const FIVE_MINUTES = Duration.minutes(5);

/** A service-wide metric of the bridge, by name and statistic. @default period FIVE_MINUTES */
export type ServiceMetric = (metricName: string, statistic: string, period?: Duration) => cloudwatch.Metric;

/** The `ServiceMetric` of the Powertools service `service`. */
export function serviceMetricOf(service: string): ServiceMetric {
  return (metricName, statistic, period = FIVE_MINUTES) =>
    new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { service },
      statistic,
      period,
    });
}
