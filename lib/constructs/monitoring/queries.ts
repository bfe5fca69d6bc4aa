/**
 * The saved Logs Insights queries of the bridge, for the per-club detail that the service-wide
 * metrics leave out: `<service>/overdue-sources` (the club/sources behind SourceOverdue, dispatch
 * log group), `<service>/club-activity` and `<service>/club-quota` (poll log group, whose EMF lines
 * carry the club as a property). The dashboard shows two of them as tables.
 */
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import {
  METRIC,
  METRIC_PROPERTY,
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

const CLUB = METRIC_PROPERTY.club;

/**
 * Logs Insights (on the poll function's log group, whose EMF lines carry the club as a property):
 * each club's polls, events, records, API requests, 429s, failed sources and longest poll.
 */
export const CLUB_ACTIVITY_QUERY = new logs.QueryString({
  filterStatements: [`ispresent(${CLUB}) and ispresent(${METRIC.pollErrors})`],
  statsStatements: [
    `count(*) as polls, sum(${METRIC.eventsPublished}) as events, sum(${METRIC.recordsFetched}) as records, sum(${METRIC.apiRequests}) as requests, sum(${METRIC.rateLimited}) as rateLimited, sum(${METRIC.pollErrors}) as failedSources, max(${METRIC.pollDuration}) as longestPollMs by ${CLUB}`,
  ],
  sort: 'requests desc',
  limit: 200,
});

/**
 * Logs Insights (poll log group: each club poll's EMF line carries its quota share and the club;
 * the dispatcher writes one fleet-wide document a run): each club's share of its plan's monthly
 * quota at its latest poll, highest first.
 */
export const CLUB_QUOTA_QUERY = new logs.QueryString({
  filterStatements: [`ispresent(${CLUB}) and ispresent(${METRIC.quotaUsedShare})`],
  statsStatements: [`latest(${METRIC.quotaUsedShare}) as quotaUsedShare by ${CLUB}`],
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
  /** Per club: quota used this month (dispatch log group). */
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
