/**
 * The one way gym-bridge builds a Lambda function: Node.js 22 on arm64, bundled by the locally
 * installed esbuild (never Docker) as an ES module with source maps, its own log group with a
 * retention, its own role (logs: only its own log group), and the Powertools environment.
 */
import { createRequire } from 'node:module';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ENV, HANDLER_EXPORT, METRICS_NAMESPACE } from '../../lambdas/common/deployment-contract';

/** Repository root: entries in `HANDLER_ENTRIES` are relative to it. */
export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Absolute path of a handler entry given relative to the repository root. */
export const projectPath = (relativePath: string): string => join(PROJECT_ROOT, relativePath);

/** Thrown when a function cannot be bundled locally (esbuild missing) instead of silently using Docker. */
export class LocalBundlingUnavailableError extends Error {
  override readonly name = 'LocalBundlingUnavailableError';
}

/**
 * ES module output needs `require` for the CommonJS dependencies esbuild inlines (they may require
 * Node built-ins at run time); the alias keeps the banner from clashing with bundled names.
 */
const ESM_REQUIRE_SHIM =
  "import { createRequire as __gymBridgeCreateRequire } from 'node:module'; const require = __gymBridgeCreateRequire(import.meta.url);";

let esbuildChecked = false;

/** Fails fast, naming the fix, when esbuild is not installed locally (CDK would fall back to Docker). */
export function assertLocalEsbuild(): void {
  if (esbuildChecked) return;
  try {
    createRequire(join(PROJECT_ROOT, 'package.json')).resolve('esbuild');
    esbuildChecked = true;
  } catch (cause) {
    throw new LocalBundlingUnavailableError(
      'esbuild is not installed in this repository: run `npm ci` (gym-bridge bundles Lambdas locally, never with Docker)',
      { cause },
    );
  }
}

export interface BridgeFunctionProps {
  /** Handler entry file, absolute or relative to the repository root (see `HANDLER_ENTRIES`). */
  readonly entry: string;
  /** What the function does, shown in the Lambda console. */
  readonly description: string;
  /**
   * Maximum run time. Keep it above the deadline the code is given (e.g. `POLL_DEADLINE_MS`).
   * @default Duration.seconds(30)
   */
  readonly timeout?: Duration;
  /** @default 512 */
  readonly memorySize?: number;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** What happens to the log group when the stack is deleted. @default RemovalPolicy.RETAIN */
  readonly logRemovalPolicy?: RemovalPolicy;
  /** Powertools service name (logs `service`, metrics `service` dimension). @default 'gym-bridge' */
  readonly serviceName?: string;
  /** Powertools log level. @default 'INFO' */
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** Extra environment variables (contract names from `ENV` are set by the grants that need them). @default none */
  readonly environment?: Readonly<Record<string, string>>;
}

/**
 * A NodejsFunction with the house settings. Grants add the environment variable that goes with
 * them (e.g. `StateTable.grantReadWriteDataTo` sets `STATE_TABLE_NAME`), so `addEnvironment` is
 * public through `function`.
 */
export class BridgeFunction extends Construct {
  /** The function; `lambda.Function` (not `IFunction`) so grants can set environment variables. */
  public readonly function: lambda.Function;
  public readonly role: iam.IRole;
  public readonly logGroup: logs.ILogGroup;

  constructor(scope: Construct, id: string, props: BridgeFunctionProps) {
    super(scope, id);
    assertLocalEsbuild();

    const logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
    // An own role instead of AWSLambdaBasicExecutionRole: it may write to its own log group only.
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: props.description,
    });
    logGroup.grantWrite(role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: isAbsolute(props.entry) ? props.entry : projectPath(props.entry),
      handler: HANDLER_EXPORT,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: projectPath('package-lock.json'),
      description: props.description,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(30),
      role,
      logGroup,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        [ENV.serviceName]: props.serviceName ?? 'gym-bridge',
        [ENV.metricsNamespace]: METRICS_NAMESPACE,
        [ENV.logLevel]: props.logLevel ?? 'INFO',
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_SHIM,
        // The Node.js 22 runtime ships AWS SDK v3.
        externalModules: ['@aws-sdk/*'],
        minify: true,
        keepNames: true,
        // Linked map (index.mjs.map + sourceMappingURL), read by NODE_OPTIONS=--enable-source-maps.
        sourceMap: true,
        sourcesContent: false,
        forceDockerBundling: false,
      },
    });
    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions::AwsSolutions-L1',
      reason:
        'Node.js 22 is pinned on purpose: the code is built and tested for it (Lambda) and Node 20 (local); a runtime upgrade is a deliberate, tested change, not a silent one.',
    });
    this.role = role;
    this.logGroup = logGroup;
  }
}
