/**
 * The EventBridge `source` of every event the bridge publishes: ONE setting, shared by the deployed
 * stack (lib/stage-config.ts, which sets the poll Lambda's `EVENT_SOURCE`) and the CLI (`poll
 * --event-source`, `--stage`, `$GYM_BRIDGE_EVENT_SOURCE`), so events a CLI poll puts on a deployed
 * bus match that stage's rules.
 *
 * - A stage's source: `gym-bridge` for prod, `gym-bridge.<stage>` for any other stage
 *   (`eventSourceForStage`). The stack uses exactly this, unless context `eventSource` overrides
 *   it; the stack output `EventSource` always shows the value in force.
 * - The CLI's precedence (`resolveEventSource`): `--event-source` > `$GYM_BRIDGE_EVENT_SOURCE` >
 *   `--stage NAME` > `gym-bridge`.
 *
 * Validation (`validateEventSource`), the same for stack and CLI: 1..256 characters (EventBridge's
 * limits), letters, digits, `.`, `_`, `-`, starting with a letter or digit, and not `aws.`-prefixed
 * (reserved for AWS services: PutEvents refuses it). Runtime code: nothing here imports
 * aws-cdk-lib.
 */
import { DEFAULT_EVENT_SOURCE } from './catalog';

export { DEFAULT_EVENT_SOURCE };

/** The deployment stages (stack `GymBridge-<stage>`, bus `gym-bridge-<stage>`). */
export const DEPLOYMENT_STAGES = ['dev', 'prod'] as const;
export type DeploymentStage = (typeof DEPLOYMENT_STAGES)[number];

/**
 * The environment variable the CLI reads for the event source. Not the Lambda's `EVENT_SOURCE`
 * (ENV.eventSource): that one is set by the stack on the poll function only; a generic name in an
 * operator's shell could be left over from another tool and silently re-route every event, so the
 * CLI reads a name of its own, like `GYM_BRIDGE_PASSWORD` and `GYM_BRIDGE_API_KEY`.
 */
export const EVENT_SOURCE_ENV = 'GYM_BRIDGE_EVENT_SOURCE';

/** Longest `source` EventBridge accepts. */
export const EVENT_SOURCE_MAX_LENGTH = 256;

/** A source or stage that cannot be used: the CLI maps it to exit 2, the stack fails the synth. */
export class EventSourceError extends Error {
  override readonly name = 'EventSourceError';
}

export const isDeploymentStage = (value: unknown): value is DeploymentStage =>
  typeof value === 'string' && (DEPLOYMENT_STAGES as readonly string[]).includes(value);

/** What a valid source looks like, in words (for error messages). */
export const EVENT_SOURCE_RULE = `1..${EVENT_SOURCE_MAX_LENGTH} letters, digits, '.', '_' or '-', starting with a letter or digit, not starting with 'aws.'`;

/** Why `value` is not a usable source, or undefined when it is. */
export function eventSourceProblem(value: string): string | undefined {
  if (value.length === 0) return 'it is empty';
  if (value.length > EVENT_SOURCE_MAX_LENGTH) {
    return `it is ${value.length} characters long (EventBridge allows ${EVENT_SOURCE_MAX_LENGTH})`;
  }
  if (/^aws\./i.test(value)) return "'aws.' is reserved for AWS services (PutEvents refuses it)";
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value)) {
    return "only letters, digits, '.', '_' and '-' are allowed, starting with a letter or digit";
  }
  return undefined;
}

/**
 * `value` when it is a usable source; otherwise an EventSourceError naming where it came from
 * (`origin`, e.g. '--event-source' or 'context eventSource') and what is wrong.
 */
export function validateEventSource(value: string, origin = 'event source'): string {
  const problem = eventSourceProblem(value);
  if (problem) {
    throw new EventSourceError(
      `${origin}=${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value)} is not a valid EventBridge source: ${problem} (must be ${EVENT_SOURCE_RULE})`,
    );
  }
  return value;
}

/** The source of a stage's events, as the stack deploys it: prod `gym-bridge`, others `gym-bridge.<stage>`. */
export function eventSourceForStage(stage: string): string {
  if (!isDeploymentStage(stage)) {
    throw new EventSourceError(
      `stage=${JSON.stringify(stage)} is not a deployment stage: must be one of ${DEPLOYMENT_STAGES.join(', ')}`,
    );
  }
  return stage === 'prod' ? DEFAULT_EVENT_SOURCE : `${DEFAULT_EVENT_SOURCE}.${stage}`;
}

/** Where a resolved source came from. */
export type EventSourceOrigin = 'flag' | 'env' | 'stage' | 'default';

export interface ResolveEventSourceInput {
  /** `--event-source` (undefined when not given). An empty string is an error, not "unset". */
  readonly flag?: string | undefined;
  /** The process environment: `GYM_BRIDGE_EVENT_SOURCE` is read (empty or blank counts as unset). */
  readonly env: NodeJS.ProcessEnv | Readonly<Record<string, string | undefined>>;
  /** `--stage NAME`: that stage's source, as the stack gives it. */
  readonly stage?: string | undefined;
}

export interface ResolvedEventSource {
  readonly source: string;
  readonly origin: EventSourceOrigin;
}

/**
 * The CLI's source with where it came from: `--event-source` > `$GYM_BRIDGE_EVENT_SOURCE` >
 * `--stage` > `gym-bridge`. A stage given together with a flag or the variable is still checked
 * (a typo in `--stage` is an error, never silently ignored). Throws EventSourceError.
 */
export function resolveEventSourceWithOrigin(input: ResolveEventSourceInput): ResolvedEventSource {
  const stageSource = input.stage === undefined ? undefined : eventSourceForStage(input.stage);
  if (input.flag !== undefined) {
    return { source: validateEventSource(input.flag, '--event-source'), origin: 'flag' };
  }
  const fromEnv = input.env[EVENT_SOURCE_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    return { source: validateEventSource(fromEnv.trim(), `$${EVENT_SOURCE_ENV}`), origin: 'env' };
  }
  if (stageSource !== undefined) return { source: stageSource, origin: 'stage' };
  return { source: DEFAULT_EVENT_SOURCE, origin: 'default' };
}

/** The CLI's source: `--event-source` > `$GYM_BRIDGE_EVENT_SOURCE` > `--stage` > `gym-bridge`. */
export function resolveEventSource(input: ResolveEventSourceInput): string {
  return resolveEventSourceWithOrigin(input).source;
}

/** One line for humans: `gym-bridge.dev (from --stage dev)`. */
export function describeEventSource(resolved: ResolvedEventSource, stage?: string): string {
  const from = {
    flag: '--event-source',
    env: `$${EVENT_SOURCE_ENV}`,
    stage: `--stage ${stage ?? ''}`.trim(),
    default: 'the default',
  }[resolved.origin];
  return `${resolved.source} (from ${from})`;
}
