/** The state table of a deployed bridge, checked before a subcommand reads or writes it. */
import { DynamoDbClubRegistry } from '../../../lambdas/clubs';
import { dynamoDbClient } from '../../aws-env';
import { checkTableExists } from '../../preflight';

/** What to do when the state table is missing. */
export const TABLE_MISSING =
  'give the deployed table with --table (the stack output StateTableName) or $STATE_TABLE_NAME, and check AWS_REGION / AWS_ENDPOINT_URL_DYNAMODB';

/** The registry of an existing state table (a missing one: exit 2, saying which and where). */
export async function registryFor(tableName: string): Promise<DynamoDbClubRegistry> {
  const client = dynamoDbClient();
  await checkTableExists(client, tableName, { whenMissing: TABLE_MISSING });
  return new DynamoDbClubRegistry({ client, tableName });
}
