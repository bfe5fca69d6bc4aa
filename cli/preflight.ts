/**
 * Start-up checks for CLI commands: what can be checked before the first API request is checked
 * then, with a message that says what is wrong and what to do. A bad flag or a missing resource the
 * user names is a CliUsageError (exit 2); an endpoint that cannot be reached is a PreflightError
 * (exit 1: the flags may be right, the environment is not).
 *
 *   await checkEventsFile(flags['events-file']);           // --events-file
 *   checkTableName(tableName);                              // --table
 *   await checkTableExists(dynamo, tableName, { createTable: flags['create-table'] });
 *   checkBusName(bus); await checkBusExists(eventBridge, bus);  // --bus
 */
import { constants } from 'node:fs';
import { access, open, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeEventBusCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { stateTableKeySchema } from '../lambdas/state/table';
import { CliUsageError } from './args';

/** An endpoint could not be asked (unreachable, credentials refused, ...): exit 1, not a usage error. */
export class PreflightError extends Error {
  override readonly name = 'PreflightError';
}

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * `--events-file FILE` can be appended to: an existing FILE is not a directory and opens for
 * appending (nothing is written); a new FILE's folder exists and is a writable directory. Nothing
 * is created: a missing folder is refused (a typo in a path should not grow a tree of folders).
 * One check for every command that takes an events file (`start`, `poll`, `local-aws`).
 */
export async function checkEventsFile(path: string, flag = '--events-file'): Promise<void> {
  if (path.trim() === '') throw new CliUsageError(`${flag} must name a file, got an empty string`);
  const existing = await stat(path).catch((err: unknown) => {
    const code = errorCode(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined; // the folders say why, below
    throw new CliUsageError(`${flag} ${path}: cannot be checked (${errorCode(err) ?? String(err)})`);
  });
  if (existing?.isDirectory())
    throw new CliUsageError(
      `${flag} ${path} is a directory: give a file path, e.g. ${join(path, 'events.jsonl')}`,
    );
  if (existing) {
    try {
      const handle = await open(path, 'a');
      await handle.close();
    } catch (err) {
      throw new CliUsageError(`${flag} ${path} is not writable (${errorCode(err) ?? String(err)})`);
    }
    return;
  }
  const folder = dirname(resolve(path));
  const info = await stat(folder).catch(() => undefined);
  if (info?.isDirectory()) {
    try {
      await access(folder, constants.W_OK | constants.X_OK);
    } catch {
      throw new CliUsageError(`${flag} ${path}: cannot create files in ${folder} (not writable)`);
    }
    return;
  }
  if (info) throw new CliUsageError(`${flag} ${path}: ${folder} is a file, not a directory`);
  // The folder is missing: a file higher up explains it better than "does not exist".
  for (let above = dirname(folder); above !== dirname(above); above = dirname(above)) {
    const up = await stat(above).catch(() => undefined);
    if (up && !up.isDirectory())
      throw new CliUsageError(`${flag} ${path}: ${above} is a file, not a directory`);
    if (up) break;
  }
  throw new CliUsageError(
    `${flag} ${path}: the folder ${folder} does not exist: create it first (mkdir -p ${folder}) or give a path in an existing folder`,
  );
}

/** DynamoDB's table-name rules: 3 to 255 characters from a-z, A-Z, 0-9, '_', '-' and '.'. */
export function checkTableName(name: string, flag = '--table'): void {
  if (name.length < 3 || name.length > 255)
    throw new CliUsageError(`${flag} '${name}' is not a DynamoDB table name: it needs 3 to 255 characters`);
  const bad = [...new Set(name.replace(/[A-Za-z0-9_.-]/g, ''))];
  if (bad.length)
    throw new CliUsageError(
      `${flag} '${name}' is not a DynamoDB table name: ${bad.map((c) => JSON.stringify(c)).join(', ')} not allowed (only letters, digits, '_', '-' and '.')`,
    );
}

const BUS_NAME = /^[A-Za-z0-9._\-/]{1,256}$/;
const BUS_ARN = /^arn:aws[\w-]*:events:[a-z0-9-]+:\d{12}:event-bus\/[A-Za-z0-9._\-/]{1,256}$/;

/** An EventBridge bus name (1 to 256 of a-z, A-Z, 0-9, '.', '_', '-', '/') or a bus ARN. */
export function checkBusName(name: string, flag = '--bus'): void {
  if (BUS_NAME.test(name) || BUS_ARN.test(name)) return;
  throw new CliUsageError(
    `${flag} '${name}' is not an event bus name or ARN: 1 to 256 letters, digits, '.', '_', '-' or '/' (or arn:aws:events:<region>:<account>:event-bus/<name>)`,
  );
}

/** Where the SDK's environment points a service: the endpoint override, or the region. */
export function whereFromEnv(
  service: 'DYNAMODB' | 'EVENTBRIDGE' | 'SECRETS_MANAGER',
  env = process.env,
): string {
  const endpoint = env[`AWS_ENDPOINT_URL_${service}`] ?? env.AWS_ENDPOINT_URL;
  if (endpoint) return endpoint;
  return `region ${env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? '(unset)'}`;
}

function unreachable(what: string, where: string, err: unknown): PreflightError {
  const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  const hint = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|socket hang up/i.test(
    `${errorCode(err) ?? ''} ${reason}`,
  )
    ? ' (nothing answers there: for a local run start `npm run --silent cli -- local-aws` and export what it prints)'
    : '';
  return new PreflightError(`${what} at ${where} failed: ${reason}${hint}`, { cause: err });
}

export interface CheckTableOptions {
  /** `--create-table` was given: a missing table is fine, it will be created. */
  readonly createTable?: boolean | undefined;
  /** For messages. @default whereFromEnv('DYNAMODB') */
  readonly where?: string;
  /**
   * What to do about a missing table, for commands that cannot create one.
   * @default 'add --create-table to create it (or check --table and the AWS environment)'
   */
  readonly whenMissing?: string;
}

/**
 * The state table exists with the state table's keys. Missing, without `createTable`: a
 * CliUsageError (exit 2) with the hint to add `--create-table`. Other keys: CliUsageError.
 * Endpoint unreachable or refusing: PreflightError (exit 1).
 */
export async function checkTableExists(
  client: DynamoDBClient,
  name: string,
  options: CheckTableOptions = {},
): Promise<'exists' | 'will-create'> {
  const where = options.where ?? whereFromEnv('DYNAMODB');
  let keys: { AttributeName?: string | undefined; KeyType?: string | undefined }[] | undefined;
  try {
    const out = await client.send(new DescribeTableCommand({ TableName: name }));
    keys = out.Table?.KeySchema;
  } catch (err) {
    if (err instanceof Error && err.name === 'ResourceNotFoundException') {
      if (options.createTable) return 'will-create';
      const todo =
        options.whenMissing ?? 'add --create-table to create it (or check --table and the AWS environment)';
      throw new CliUsageError(`state table '${name}' does not exist at ${where}: ${todo}`);
    }
    throw unreachable(`DynamoDB DescribeTable ${name}`, where, err);
  }
  const hash = keys?.find((k) => k.KeyType === 'HASH')?.AttributeName;
  const range = keys?.find((k) => k.KeyType === 'RANGE')?.AttributeName;
  const { partitionKey, sortKey } = stateTableKeySchema;
  if (hash !== partitionKey.name || range !== sortKey.name) {
    throw new CliUsageError(
      `table '${name}' at ${where} is not a gym-bridge state table (keys ${hash ?? '-'}/${range ?? '-'}, expected ${partitionKey.name}/${sortKey.name}): choose another --table`,
    );
  }
  return 'exists';
}

/**
 * The bus exists. Missing: CliUsageError (exit 2) naming it; unreachable: PreflightError (exit 1).
 * (PutEvents to a missing bus does not fail the request, only each entry.) With `deniedIsFine`,
 * credentials that may not describe the bus (AccessDenied) let the command go on: they may still
 * put events on it.
 */
export async function checkBusExists(
  client: EventBridgeClient,
  name: string,
  options: { readonly where?: string; readonly deniedIsFine?: boolean } = {},
): Promise<void> {
  const where = options.where ?? whereFromEnv('EVENTBRIDGE');
  try {
    await client.send(new DescribeEventBusCommand({ Name: name }));
  } catch (err) {
    if (err instanceof Error && err.name === 'ResourceNotFoundException') {
      throw new CliUsageError(
        `event bus '${name}' does not exist at ${where}: check --bus (the stack's bus name is an output of cdk deploy; local-aws has the buses its banner lists) and AWS_REGION`,
      );
    }
    if (options.deniedIsFine && err instanceof Error && /AccessDenied/.test(err.name)) return;
    throw unreachable(`EventBridge DescribeEventBus ${name}`, where, err);
  }
}
