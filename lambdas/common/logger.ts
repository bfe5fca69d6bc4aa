/**
 * The one logger of runtime code: Powertools (structured JSON, CloudWatch-friendly). Keys such as
 * `clubId` and `source` are attached with `logger.appendKeys` or per call. Never pass secrets,
 * tokens or raw upstream bodies to it.
 *
 * Powertools owns some keys of every line (`message`, `level`, `timestamp`, `service`,
 * `sampling_rate`, and the Lambda context keys): an attribute with one of those names is dropped with
 * a "reserved key" warning, so an error passed as `{ message }` vanishes from CloudWatch. Pass the
 * reason as `error`, `err` or `reason`. As a safety net this logger never lets such an attribute be
 * lost: it is renamed `attr_<key>` and the line says so in `reservedKeysRenamed` (which tests look
 * for: see `RESERVED_LOG_KEYS`).
 *
 * Every string a line carries passes `redactKnownSecrets` (common/redact.ts) on its way out: a
 * credential this process has used never reaches a log, whatever text it hides in.
 *
 * What a line carries of the Lambda: a logger with a Lambda context (Powertools' `addContext`, its
 * middleware) writes the context on every line, the X-Ray trace id with it; a line of a logger
 * without one carries no trace id either. `InvocationLog` writes the context ONCE per invocation
 * (the poll function: its lines are counted in the log bill), every line keeping the request id.
 * `sampling_rate` is written only when debug sampling is on (not 0).
 *
 * Level: `LOG_LEVEL` (or Powertools' `POWERTOOLS_LOG_LEVEL`); silent under vitest unless set.
 *
 * Where lines go: Powertools' own console (stdout for TRACE..INFO, stderr for WARN and up: what
 * Lambda reads), unless the logger has an `output` (a `LogOutput`: the CLI's is stderr for every
 * level, cli/log-output.ts). Powertools (2.36) has no public option for the stream: its `console`
 * is private, built in its private `setConsole` from `process.stdout`/`process.stderr` (or the
 * global console under `POWERTOOLS_DEV`, which also pretty-prints). So the output is this
 * subclass's own option, printed through the two methods Powertools keeps for subclasses:
 * `printLog` (every line Powertools prints goes through it, except a buffered line's flush, and no
 * logger here buffers) and `createLogger` (the factory `createChild` calls, documented as the seam
 * for subclassing: a child keeps its parent's output, as it keeps its level).
 */
import { LogFormatter, Logger, LogItem } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import type { Context } from 'aws-lambda';
import { ENV } from './deployment-contract';
import { redactKnownSecrets } from './redact';

type Level = 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'CRITICAL' | 'SILENT';

/**
 * Keys a log attribute must not use: Powertools' reserved keys (dropped with a warning) and the
 * keys its formatter writes itself on every line (overwritten).
 */
export const RESERVED_LOG_KEYS: ReadonlySet<string> = new Set([
  'level',
  'message',
  'sampling_rate',
  'service',
  'timestamp',
  'xray_trace_id',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'correlation_id',
]);

/** Prefix of an attribute renamed because its key is reserved. */
export const RENAMED_KEY_PREFIX = 'attr_';

type ConstructorOptions = NonNullable<ConstructorParameters<typeof Logger>[0]>;
type Extra = Parameters<Logger['info']> extends [unknown, ...infer R] ? R : never;

function isPlainAttributes(item: unknown): item is Record<string, unknown> {
  return typeof item === 'object' && item !== null && !(item instanceof Error) && !Array.isArray(item);
}

/** The extra inputs with reserved attribute keys renamed, and which keys were. */
export function guardAttributes(extra: readonly unknown[]): { extra: unknown[]; renamed: string[] } {
  const renamed: string[] = [];
  const out = extra.map((item) => {
    if (!isPlainAttributes(item)) return item;
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(item)) {
      if (!RESERVED_LOG_KEYS.has(key)) continue;
      copy ??= { ...item };
      copy[`${RENAMED_KEY_PREFIX}${key}`] = copy[key];
      delete copy[key];
      renamed.push(key);
    }
    return copy ?? item;
  });
  if (renamed.length > 0) out.push({ reservedKeysRenamed: renamed });
  return { extra: out, renamed };
}

/**
 * The shape of every line, through the logger's extension point for it (a LogFormatter): the keys
 * and order of Powertools' own formatter, with the X-Ray trace id only on a line that carries the
 * Lambda context, and `sampling_rate` only when debug sampling is on.
 */
export class BridgeLogFormatter extends LogFormatter {
  formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    const context = attributes.lambdaContext;
    return new LogItem({
      attributes: {
        level: attributes.logLevel,
        message: attributes.message,
        timestamp: this.formatTimestamp(attributes.timestamp),
        service: attributes.serviceName,
        cold_start: context?.coldStart,
        function_arn: context?.invokedFunctionArn,
        function_memory_size: context?.memoryLimitInMB,
        function_name: context?.functionName,
        function_request_id: context?.awsRequestId,
        ...(attributes.sampleRateValue ? { sampling_rate: attributes.sampleRateValue } : {}),
        ...(context ? { xray_trace_id: attributes.xRayTraceId } : {}),
        tenant_id: context?.tenantId,
      },
    }).addAttributes(additional);
  }
}

/** Where a logger's lines go instead of Powertools' console: one call per line (a Node Console). */
export interface LogOutput {
  log(line: string): void;
}

/** Powertools' options, and where the lines go (default: Powertools' own console). */
export type BridgeLoggerOptions = ConstructorOptions & { readonly output?: LogOutput };

/**
 * Powertools' Logger, with reserved attribute keys renamed instead of dropped, and its lines sent to
 * its `output` when it has one (children too).
 */
export class BridgeLogger extends Logger {
  #output: LogOutput | undefined;

  constructor(options: BridgeLoggerOptions = {}) {
    const { output, ...rest } = options;
    super({ ...rest, logFormatter: new BridgeLogFormatter() } as ConstructorOptions);
    this.#output = output;
  }

  /** Sends this logger's lines, and those of the children made from it afterwards, to `output`. */
  setOutput(output: LogOutput | undefined): void {
    this.#output = output;
  }
  override trace(input: Parameters<Logger['trace']>[0], ...extra: Extra): void {
    super.trace(input, ...(guardAttributes(extra).extra as Extra));
  }
  override debug(input: Parameters<Logger['debug']>[0], ...extra: Extra): void {
    super.debug(input, ...(guardAttributes(extra).extra as Extra));
  }
  override info(input: Parameters<Logger['info']>[0], ...extra: Extra): void {
    super.info(input, ...(guardAttributes(extra).extra as Extra));
  }
  override warn(input: Parameters<Logger['warn']>[0], ...extra: Extra): void {
    super.warn(input, ...(guardAttributes(extra).extra as Extra));
  }
  override error(input: Parameters<Logger['error']>[0], ...extra: Extra): void {
    super.error(input, ...(guardAttributes(extra).extra as Extra));
  }
  override critical(input: Parameters<Logger['critical']>[0], ...extra: Extra): void {
    super.critical(input, ...(guardAttributes(extra).extra as Extra));
  }
  override createChild(options?: BridgeLoggerOptions): BridgeLogger {
    return super.createChild(options) as BridgeLogger;
  }
  protected override createLogger(options?: BridgeLoggerOptions): BridgeLogger {
    return new BridgeLogger({ ...options, output: options?.output ?? this.#output });
  }
  /** Powertools' own printing without an output; the same JSON, one line, to the output with one. */
  protected override printLog(logLevel: number, log: LogItem): void {
    // Powertools prints the lines logged during its constructor before this class's fields exist.
    const output = #output in this ? this.#output : undefined;
    if (output === undefined) {
      super.printLog(logLevel, log);
      return;
    }
    log.prepareForPrint();
    output.log(JSON.stringify(log.getAttributes(), this.getJsonReplacer()));
  }
}

function defaultLevel(): Level {
  const fromEnv = (process.env[ENV.logLevelOverride] ?? process.env[ENV.logLevel])?.toUpperCase();
  if (fromEnv) return fromEnv as Level;
  return process.env.VITEST ? 'SILENT' : 'INFO';
}

/** Applied to every value of every line (children inherit it). */
export function redactingReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? redactKnownSecrets(value) : value;
}

export const logger: BridgeLogger = new BridgeLogger({
  serviceName: process.env[ENV.serviceName] ?? 'gym-bridge',
  logLevel: defaultLevel(),
  jsonReplacerFn: redactingReplacer,
});

/** Powertools' key for the request id of the Lambda invocation a line belongs to. */
export const REQUEST_ID_KEY = 'function_request_id';

/**
 * The Lambda context written once per invocation instead of on every line. From `start` to `end`,
 * the lines of the logger, and of the children made from it in the meantime, carry the request id
 * (`function_request_id`) and nothing else of the context; `end` writes the invocation's own line
 * with the whole context: cold start, function ARN, memory, name, request id, X-Ray trace id.
 * The logger must not have a Lambda context of its own (no Powertools middleware on it).
 */
export class InvocationLog {
  readonly #log: BridgeLogger;
  readonly #contextLog: BridgeLogger;

  /** `contextLog` writes the invocation's line (a child of `log` by default: one per container). */
  constructor(log: BridgeLogger, contextLog: BridgeLogger = log.createChild()) {
    this.#log = log;
    this.#contextLog = contextLog;
  }

  start(context: Context): void {
    this.#log.resetKeys();
    this.#log.appendKeys({ [REQUEST_ID_KEY]: context.awsRequestId });
    this.#contextLog.setLogLevel(this.#log.getLevelName());
    this.#contextLog.addContext(context); // cold_start: true on the container's first invocation only
  }

  /** The invocation's INFO line, with the whole Lambda context; the logger's keys are reset. */
  end(message: string, attributes: Record<string, unknown>): void {
    this.#contextLog.info(message, attributes);
    this.#log.resetKeys();
  }
}
