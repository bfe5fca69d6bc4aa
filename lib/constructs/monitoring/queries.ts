/**
 * The saved Logs Insights queries of the bridge, for the per-club detail that the service-wide
 * metrics leave out: `<service>/overdue-sources` (the club/sources behind SourceOverdue, dispatch
 * log group), `<service>/club-activity` and `<service>/club-quota` (poll log group: each club
 * poll's `club polled` line, keyed by `clubId`). The dashboard shows two of them as tables.
 */
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import {
  CLUB_POLLED_LOG_MESSAGE,
  SOURCE_OVERDUE_LOG_MESSAGE,
} from '../../../lambdas/common/deployment-contract';
import type { MonitoredPoller } from './monitored-poller';

/**
 * Logs Insights (on the dispatch function's log group): the club/sources behind SourceOverdue, one
 * row each, the longest overdue first, with the last error the engine stored.
 */
export const OVERDUE_SOURCES_QUERY = new logs.QueryString({
  filterStatements: [`message = '${SOURCE_OVERDUE_LOG_MESSAGE}'`],
  statsStatements: [
    'latest(sinceSuccessSeconds) as sinceSuccessS, latest(allowedSeconds) as allowedS, latest(consecutiveFailures) as failures, latest(lastErrorKind) as errorKind, latest(reason) as lastReason, latest(lastSuccessAt) as lastSuccess, latest(@timestamp) as lastSeen by clubId, source',
  ],
  sort: 'sinceSuccessS desc',
  limit: 200,
});

/**
 * Logs Insights (on the poll function's log group: one `club polled` line per club poll): each
 * club's polls, events, records, API requests, 429s, failed sources and longest poll. The line
 * leaves out a count that is zero, so an empty cell is 0.
 */
export const CLUB_ACTIVITY_QUERY = new logs.QueryString({
  filterStatements: [`message = '${CLUB_POLLED_LOG_MESSAGE}'`],
  statsStatements: [
    'count(*) as polls, sum(events) as events, sum(records) as records, sum(requests) as requests, sum(rateLimited) as rateLimited, sum(failedSources) as failedSources, max(durationMs) as longestPollMs by clubId',
  ],
  sort: 'requests desc',
  limit: 200,
});

/**
 * Logs Insights (poll log group: each club poll's `club polled` line carries its quota share; the
 * dispatcher's fleet-wide maximum is the QuotaUsedShare metric): each club's share of its plan's
 * monthly quota at its latest poll, highest first.
 */
export const CLUB_QUOTA_QUERY = new logs.QueryString({
  filterStatements: [`message = '${CLUB_POLLED_LOG_MESSAGE}' and ispresent(quotaUsedShare)`],
  statsStatements: ['latest(quotaUsedShare) as quotaUsedShare by clubId'],
  sort: 'quotaUsedShare desc',
  limit: 50,
});

/** The names of the saved queries. */
export interface BridgeQueryNames {
  readonly overdueSources: string;
  readonly clubActivity: string;
  readonly clubQuota: string;
}

/** Saved Logs Insights queries (console: Logs Insights > Queries), by what they list. */
export interface BridgeQueries {
  /** The overdue club/sources behind SourceOverdue (dispatch log group). */
  readonly overdueSources: logs.QueryDefinition;
  /** Per club: polls, events, records, requests, 429s, failed sources (poll log group). */
  readonly clubActivity: logs.QueryDefinition;
  /** Per club: quota used this month (poll log group). */
  readonly clubQuota: logs.QueryDefinition;
}

/** The query names of the Powertools service `service`: `<service>/<what it lists>`. */
export function queryNamesFor(service: string): BridgeQueryNames {
  return {
    overdueSources: `${service}/overdue-sources`,
    clubActivity: `${service}/club-activity`,
    clubQuota: `${service}/club-quota`,
  };
}

export interface SavedQueriesProps extends Pick<MonitoredPoller, 'dispatchLogGroup' | 'pollLogGroup'> {
  readonly names: BridgeQueryNames;
}

/** Saves the three queries in `scope`. */
export function createSavedQueries(scope: Construct, props: SavedQueriesProps): BridgeQueries {
  return {
    overdueSources: new logs.QueryDefinition(scope, 'OverdueSourcesQuery', {
      queryDefinitionName: props.names.overdueSources,
      queryString: OVERDUE_SOURCES_QUERY,
      logGroups: [props.dispatchLogGroup],
    }),
    clubActivity: new logs.QueryDefinition(scope, 'ClubActivityQuery', {
      queryDefinitionName: props.names.clubActivity,
      queryString: CLUB_ACTIVITY_QUERY,
      logGroups: [props.pollLogGroup],
    }),
    clubQuota: new logs.QueryDefinition(scope, 'ClubQuotaQuery', {
      queryDefinitionName: props.names.clubQuota,
      queryString: CLUB_QUOTA_QUERY,
      logGroups: [props.pollLogGroup],
    }),
  };
}
