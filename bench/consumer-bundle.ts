/**
 * What a consumer's Lambda bundle gains from `@gym-bridge/events` (`npm run bench:consumer`).
 *
 * Bundles three minimal consumers with esbuild (minified, ESM, node22, as `NodejsFunction` would)
 * and compares their bytes:
 * - `baseline`: Powertools Parser with its EventBridge envelope and a hand-written zod schema of the
 *   two Payment Failed fields the handler reads: what a team writes without the module.
 * - `module`: the same handler with the module's `PaymentFailedDetail` (every field validated, typed).
 * - `module-only`: `parseBridgeEvent` from the module, without Powertools.
 *
 * Lists each bundle's input packages and checks that no forbidden input is among them (the AWS SDK,
 * the engine, the state store, the sandbox, the API client) and that the bundle imports no Node
 * built-in; test/unit/event-tooling/consumer-bundle.test.ts runs the same check. Writes
 * docs/consumer-bundle.md with the machine and the figures.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { ALL_DETAIL_TYPES } from '../lambdas/events/event-names';
import { machineInfo } from './machine';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MODULE_ENTRY = fileURLToPath(new URL('../event-tooling/consumer.ts', import.meta.url));

export const CONSUMERS = {
  baseline: `
import { parse } from '@aws-lambda-powertools/parser';
import { EventBridgeEnvelope } from '@aws-lambda-powertools/parser/envelopes/eventbridge';
import { z } from 'zod';
const PaymentFailed = z.object({ clubId: z.string(), reason: z.enum(['declined', 'dishonoured', 'unknown-response']) });
export const handler = async (event) => {
  const detail = parse(event, EventBridgeEnvelope, PaymentFailed);
  return \`\${detail.clubId} \${detail.reason}\`;
};
`,
  module: `
import { parse } from '@aws-lambda-powertools/parser';
import { EventBridgeEnvelope } from '@aws-lambda-powertools/parser/envelopes/eventbridge';
import { PaymentFailedDetail } from '@gym-bridge/events';
export const handler = async (event) => {
  const detail = parse(event, EventBridgeEnvelope, PaymentFailedDetail);
  return \`\${detail.clubId} \${detail.reason}\`;
};
`,
  'module-only': `
import { parseBridgeEvent } from '@gym-bridge/events';
export const handler = async (event) => {
  const { detail } = parseBridgeEvent(event, 'Payment Failed');
  return \`\${detail.clubId} \${detail.reason}\`;
};
`,
} as const;
export type ConsumerVariant = keyof typeof CONSUMERS;

/** Inputs a consumer bundle must never contain (path fragments of the metafile's inputs). */
export const FORBIDDEN_INPUTS: readonly RegExp[] = [
  /node_modules\/@aws-sdk\//,
  /node_modules\/@smithy\//,
  /^lambdas\/(engine|state|sources|handlers|clubs|delivery|common\/logger)/,
  /^(sandbox|cli|local-aws)\//,
  /^lambdas\/gym-api\/(?!schemas\.ts$)/,
  /^lambdas\/events\/(publisher|event-id|envelope|pii)\.ts$/,
  /^event-tooling\/(examples|example-records|replay|replay-watch|build-package|asyncapi|events-file)\.ts$/,
  /^(lib|bin|bench)\//,
];

export interface ConsumerBundle {
  readonly variant: ConsumerVariant;
  readonly bytes: number;
  readonly gzipBytes: number;
  readonly inputs: readonly string[];
  /** npm packages among the inputs (`@scope/name` or `name`). */
  readonly packages: readonly string[];
  /** Project files among the inputs (paths from the repository root). */
  readonly projectFiles: readonly string[];
  /** Imports the bundle leaves to the runtime (e.g. `node:crypto`). */
  readonly externalImports: readonly string[];
  readonly metafile: Metafile;
}

function packageOf(input: string): string | undefined {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  return match?.[1];
}

export async function bundleConsumer(variant: ConsumerVariant): Promise<ConsumerBundle> {
  const result = await build({
    stdin: {
      contents: CONSUMERS[variant],
      resolveDir: ROOT,
      sourcefile: `consumer-${variant}.js` /* the entry's name among the inputs */,
      loader: 'js',
    },
    absWorkingDir: ROOT,
    alias: { '@gym-bridge/events': MODULE_ENTRY },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error('esbuild produced no output');
  const { gzipSync } = await import('node:zlib');
  const inputs = Object.keys(result.metafile.inputs).sort();
  const outputMeta = Object.values(result.metafile.outputs)[0];
  return {
    variant,
    bytes: output.contents.byteLength,
    gzipBytes: gzipSync(output.contents).byteLength,
    inputs,
    packages: [...new Set(inputs.map(packageOf).filter((p): p is string => p !== undefined))].sort(),
    projectFiles: inputs.filter((i) => !i.includes('node_modules/') && !i.startsWith('consumer-')),
    externalImports: [
      ...new Set((outputMeta?.imports ?? []).filter((i) => i.external).map((i) => i.path)),
    ].sort(),
    metafile: result.metafile,
  };
}

/** The inputs of a bundle that match a forbidden pattern (empty when the bundle is clean). */
export const forbiddenInputs = (bundle: ConsumerBundle): string[] =>
  bundle.inputs.filter((input) => FORBIDDEN_INPUTS.some((pattern) => pattern.test(input)));

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

export function renderReport(bundles: Record<ConsumerVariant, ConsumerBundle>): string {
  const m = machineInfo();
  const base = bundles.baseline;
  const row = (b: ConsumerBundle, what: string) =>
    `| ${b.variant} | ${what} | ${b.bytes.toLocaleString('en')} (${kb(b.bytes)}) | ${b.gzipBytes.toLocaleString('en')} | ${
      b === base
        ? '-'
        : `${b.bytes - base.bytes >= 0 ? '+' : ''}${(b.bytes - base.bytes).toLocaleString('en')}`
    } |`;
  const lines = [
    '# What a consumer bundle gains from `@gym-bridge/events`',
    '',
    '<!-- Written by `npm run bench:consumer` (bench/consumer-bundle.ts). -->',
    '',
    `Measured ${m.date} on ${m.cpuModel} (${m.cores} cores, ${m.memoryGb} GB), Node ${m.node}, ${m.platform}, commit ${m.commit || 'unknown'}.`,
    'esbuild, bundled and minified, ESM, `target: node22`, `platform: node` (what `NodejsFunction` does).',
    '',
    '| consumer | what it does | bytes | gzip | vs baseline |',
    '| --- | --- | ---: | ---: | ---: |',
    row(base, 'Powertools Parser + EventBridge envelope, a hand-written zod schema of 2 fields'),
    row(bundles.module, "the same with the module's `PaymentFailedDetail` (every field, typed)"),
    row(bundles['module-only'], "the module's `parseBridgeEvent`, no Powertools"),
    '',
    'zod is most of every bundle: Powertools Parser needs it anyway, so the module adds the catalog',
    `(all ${ALL_DETAIL_TYPES.length} detail schemas and the API record schemas they embed; zod schemas are not tree-shaken`,
    'per detail) and nothing else. `node:zlib` is imported by Powertools Parser (its helpers), not by',
    'the module.',
    '',
    '## Inputs',
    '',
  ];
  for (const b of Object.values(bundles)) {
    lines.push(
      `- **${b.variant}**: packages ${b.packages.map((p) => `\`${p}\``).join(', ')}; project files ${
        b.projectFiles.length > 0 ? b.projectFiles.map((f) => `\`${f}\``).join(', ') : 'none'
      }; runtime imports ${b.externalImports.length > 0 ? b.externalImports.map((i) => `\`${i}\``).join(', ') : 'none'}.`,
    );
  }
  lines.push(
    '',
    'Forbidden inputs (checked here and by test/unit/event-tooling/consumer-bundle.test.ts): the AWS SDK',
    '(`@aws-sdk/*`, `@smithy/*`), `lambdas/engine`, `lambdas/state`, `sandbox`, `lambdas/sources`,',
    '`lambdas/gym-api/*` except the record schemas, the publisher and the rest of `lambdas/events`, `lib/`.',
    `Found: ${Object.values(bundles).flatMap(forbiddenInputs).length === 0 ? 'none' : Object.values(bundles).flatMap(forbiddenInputs).join(', ')}.`,
    '',
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const bundles = {} as Record<ConsumerVariant, ConsumerBundle>;
  for (const variant of Object.keys(CONSUMERS) as ConsumerVariant[])
    bundles[variant] = await bundleConsumer(variant);
  const report = renderReport(bundles);
  const file = fileURLToPath(new URL('../docs/consumer-bundle.md', import.meta.url));
  await writeFile(file, report, 'utf8');
  process.stdout.write(`${report}\nwritten to docs/consumer-bundle.md\n`);
  const bad = Object.values(bundles).flatMap(forbiddenInputs);
  if (bad.length > 0) {
    process.stderr.write(`forbidden inputs in a consumer bundle: ${bad.join(', ')}\n`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
