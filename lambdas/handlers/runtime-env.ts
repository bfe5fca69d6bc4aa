/**
 * Reading the Lambda environment once, with errors that name the variable and say what it holds.
 * The names are the deployment contract's (`ENV`); the CDK stack sets them.
 */
import { ENV, fitsRule, NUMBER_RULES, ruleWords } from '../common/deployment-contract';
import { DEFAULT_EVENT_SOURCE, eventSourceProblem } from '../events/event-source';
import { DEFAULT_PII_POLICY, isPiiPolicy, PII_POLICIES, type PiiPolicy } from '../events/pii';

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
  [ENV.clubSecretPrefix]: 'the Secrets Manager name prefix of club secrets (e.g. gym-bridge/clubs/)',
  [ENV.piiPolicyDefault]: `the default PII policy, one of ${PII_POLICIES.join(', ')}`,
  ...Object.fromEntries(
    Object.entries(NUMBER_RULES).map(([name, r]) => [name, `${r.holds}, ${ruleWords(r)}`]),
  ),
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

/** A numeric contract variable (NUMBER_RULES), or undefined when unset. */
export function optionalNumberEnv(env: Env, name: string): number | undefined {
  const value = env[name]?.trim();
  if (!value) return undefined;
  const n = Number(value);
  const rule = NUMBER_RULES[name];
  if (!rule || !fitsRule(rule, n)) throw invalid(name, value);
  return n;
}

export function quotaReserveEnv(env: Env, fallback: number): number {
  return optionalNumberEnv(env, ENV.quotaReserve) ?? fallback;
}

export function piiPolicyEnv(env: Env): PiiPolicy {
  const value = env[ENV.piiPolicyDefault]?.trim();
  if (!value) return DEFAULT_PII_POLICY;
  if (!isPiiPolicy(value)) throw invalid(ENV.piiPolicyDefault, value);
  return value;
}

/** `SOURCE_OVERDUE_MINUTES`: minutes (> 0), or `fallback` when unset. */
export function sourceOverdueMinutesEnv(env: Env, fallback: number): number {
  return optionalNumberEnv(env, ENV.sourceOverdueMinutes) ?? fallback;
}

/** `EVENT_SOURCE` (set by the stack to the stage's source), or `gym-bridge`; validated like the stack and the CLI. */
export function eventSourceEnv(env: Env): string {
  const value = env[ENV.eventSource]?.trim();
  if (!value) return DEFAULT_EVENT_SOURCE;
  if (eventSourceProblem(value)) throw invalid(ENV.eventSource, value);
  return value;
}
