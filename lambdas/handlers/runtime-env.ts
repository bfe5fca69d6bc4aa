/**
 * Reading the Lambda environment once, with errors that name the variable and say what it holds.
 * The names are the deployment contract's (`ENV`); the CDK stack sets them.
 */
import { ENV, MAX_CLUBS_PER_MESSAGE } from '../common/deployment-contract';
import { DEFAULT_EVENT_SOURCE, eventSourceProblem } from '../events/event-source';
import { isPiiPolicy, type PiiPolicy } from '../events/pii';

export class MissingEnvironmentError extends Error {
  override readonly name = 'MissingEnvironmentError';
}

export class InvalidEnvironmentError extends Error {
  override readonly name = 'InvalidEnvironmentError';
}

/** What each contract variable holds, for error messages. */
const MEANING: Record<string, string> = {
  [ENV.stateTable]: 'the DynamoDB state table name',
  [ENV.eventBus]: 'the EventBridge bus name or ARN',
  [ENV.eventSource]:
    "the EventBridge source of every event: 1..256 letters, digits, '.', '_' or '-', not starting with 'aws.'",
  [ENV.pollQueueUrl]: 'the SQS poll queue URL',
  [ENV.pollClubsPerMessage]: `the clubs one poll message carries, a whole number in 1..${MAX_CLUBS_PER_MESSAGE}`,
  [ENV.dispatchSpreadSeconds]: 'the seconds of each dispatch period the polls are spread over, 0..900',
  [ENV.clubSecretPrefix]: 'the Secrets Manager name prefix of club secrets (e.g. gym-bridge/clubs/)',
  [ENV.piiPolicyDefault]: "the default PII policy, 'minimal' or 'full'",
  [ENV.pollDeadlineMs]: 'milliseconds a poll invocation may use, a number >= 1000',
  [ENV.clubSecretCacheTtlMs]: 'milliseconds a club secret stays cached, a number >= 0',
  [ENV.quotaReserve]: 'the share of each monthly quota kept free, 0 <= x < 1',
  [ENV.maxResponseBytes]: 'the cap of a page body in bytes, an integer >= 65536',
  [ENV.sourceOverdueMinutes]:
    'the minutes a source may go without a successful poll before it is overdue, a number > 0',
};

export type Env = Readonly<Record<string, string | undefined>>;

export function requiredEnv(env: Env, name: string): string {
  const value = env[name]?.trim();
  if (!value) {
    throw new MissingEnvironmentError(
      `environment variable ${name} is not set: it must hold ${MEANING[name] ?? 'a value'} (the CDK stack sets it)`,
    );
  }
  return value;
}

function invalid(name: string, value: string): InvalidEnvironmentError {
  return new InvalidEnvironmentError(
    `environment variable ${name} is '${value}': it must hold ${MEANING[name] ?? 'a valid value'}`,
  );
}

export function optionalNumberEnv(env: Env, name: string, valid: (n: number) => boolean): number | undefined {
  const value = env[name]?.trim();
  if (!value) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || !valid(n)) throw invalid(name, value);
  return n;
}

export function quotaReserveEnv(env: Env, fallback: number): number {
  return optionalNumberEnv(env, ENV.quotaReserve, (n) => n >= 0 && n < 1) ?? fallback;
}

export function piiPolicyEnv(env: Env): PiiPolicy {
  const value = env[ENV.piiPolicyDefault]?.trim();
  if (!value) return 'minimal';
  if (!isPiiPolicy(value)) throw invalid(ENV.piiPolicyDefault, value);
  return value;
}

/** `SOURCE_OVERDUE_MINUTES`: minutes (> 0), or `fallback` when unset. */
export function sourceOverdueMinutesEnv(env: Env, fallback: number): number {
  return optionalNumberEnv(env, ENV.sourceOverdueMinutes, (n) => n > 0) ?? fallback;
}

/** `EVENT_SOURCE` (set by the stack to the stage's source), or `gym-bridge`; validated like the stack and the CLI. */
export function eventSourceEnv(env: Env): string {
  const value = env[ENV.eventSource]?.trim();
  if (!value) return DEFAULT_EVENT_SOURCE;
  if (eventSourceProblem(value)) throw invalid(ENV.eventSource, value);
  return value;
}
