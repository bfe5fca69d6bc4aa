/**
 * The import-direction rule (.dependency-cruiser.cjs, `npm run lint:imports`) holds on the real
 * tree, and fails on a planted wrong-way import: a temporary copy of the layout (lambdas/<part>/, cli/)
 * with one file per wrong arrow, cruised with the repository's own rules. Nothing is written to the
 * repository; no sockets.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseOptions, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeParts, codeTopFolders, DEPCRUISE_CONFIG, ROOT } from '../../support/code-parts';

const CONFIG = DEPCRUISE_CONFIG;

/** Files to write (path -> text) in a temporary tree laid out like the repository. */
type PlantedTree = Readonly<Record<string, string>>;

/**
 * Violations of a cruise as `rule: from -> to`, the arrows between parts, and (with `withReport`)
 * the err-long report a developer reads: a cruise of its own, as `npm run lint:imports` runs it
 * (formatting the first cruise's result instead lists a cycle once from each side), so it is made
 * only where a test reads it: the planted tree's, not the real tree's.
 */
async function cruiseTree(baseDir: string, options: ICruiseOptions, roots: string[], withReport = false) {
  const { tsConfig, ...rest } = options;
  const transpile = tsConfig?.fileName ? { tsConfig: extractTSConfig(join(baseDir, tsConfig.fileName)) } : {};
  const cruiseOptions: ICruiseOptions = {
    ...rest,
    ...(tsConfig ? { tsConfig } : {}),
    baseDir,
    validate: true,
  };
  const result = await cruise(roots, cruiseOptions, {}, transpile);
  const output = result.output as ICruiseResult;
  const violations = (output.summary.violations as IViolation[]).map(
    (v) => `${v.rule.name}: ${v.from} -> ${v.to}`,
  );
  const { PARTS } = await allowList();
  const partOf = (path: string) =>
    Object.entries(PARTS).find(([, part]) => part.paths.some((p) => path.startsWith(p)))?.[0];
  const arrows = new Set<string>();
  for (const m of output.modules) {
    const from = partOf(m.source);
    for (const d of m.dependencies) {
      const to = partOf(d.resolved);
      if (from && to && from !== to) arrows.add(`${from} -> ${to}`);
    }
  }
  if (!withReport) return { violations, arrows };
  const report = await cruise(roots, { ...cruiseOptions, outputType: 'err-long' }, {}, transpile);
  return { violations, arrows, report: String(report.output), exitCode: report.exitCode };
}

/** The parts and the allow-list of .dependency-cruiser.cjs, as it declares them. */
const allowList = async () => codeParts();

function plant(tree: PlantedTree): string {
  const dir = mkdtempSync(join(tmpdir(), 'import-direction-'));
  for (const [path, text] of Object.entries(tree)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('import direction (.dependency-cruiser.cjs)', () => {
  let options: ICruiseOptions;

  beforeAll(async () => {
    options = await extractDepcruiseOptions(CONFIG);
  });

  it('finds no wrong-way import in the tree, and every allowed arrow is one the code makes', async () => {
    // Prepare: the real tree with the repository's options (tsconfig paths included), from the top
    // folders of the parts .dependency-cruiser.cjs declares (every folder of code)
    const roots = codeTopFolders();
    expect(roots).toEqual(
      expect.arrayContaining(['lambdas', 'cli', 'sandbox', 'local-aws', 'event-tooling']),
    );

    // Act
    const { violations, arrows } = await cruiseTree(ROOT, options, roots);

    // Assess: no violation, and the allow-list is the graph of the code (no arrow allowed unused)
    expect(violations).toEqual([]);
    const { MAY } = await allowList();
    const allowed = Object.entries(MAY).flatMap(([from, tos]) => tos.map((to) => `${from} -> ${to}`));
    expect(allowed.filter((arrow) => !arrows.has(arrow))).toEqual([]);
  });

  describe('on a planted tree', () => {
    let dir: string;
    let result: Awaited<ReturnType<typeof cruiseTree>>;

    beforeAll(async () => {
      dir = plant({
        'lambdas/engine/poll.ts': 'export const ENGINE = 1;\n',
        'lambdas/common/planted.ts': "import { ENGINE } from '../engine/poll';\nexport const X = ENGINE;\n",
        'lambdas/clubs/registry.ts': 'export const CLUBS = 1;\n',
        'lambdas/gym-api/planted.ts': "import { CLUBS } from '../clubs/registry';\nexport const Y = CLUBS;\n",
        'sandbox/server.ts': 'export const SANDBOX = 1;\n',
        'lambdas/sources/planted.ts':
          "import { SANDBOX } from '../../sandbox/server';\nexport const W = SANDBOX;\n",
        'local-aws/endpoint.ts': 'export const LOCAL = 1;\n',
        'lambdas/handlers/planted.ts':
          "import { LOCAL } from '../../local-aws/endpoint';\nexport const Z = LOCAL;\n",
        'cli/ok.ts':
          "import { LOCAL } from '../local-aws/endpoint';\nimport { ENGINE } from '../lambdas/engine/poll';\nimport { SANDBOX } from '../sandbox/server';\nexport const OK = LOCAL + ENGINE + SANDBOX;\n",
        'lambdas/engine/ring-a.ts': "import type { B } from './ring-b';\nexport type A = { b?: B };\n",
        'lambdas/engine/ring-b.ts': "import type { A } from './ring-a';\nexport type B = { a?: A };\n",
        'lib/stack.ts': 'export const STACK = 1;\n',
        'lambdas/state/planted.ts': "import { STACK } from '../../lib/stack';\nexport const S = STACK;\n",
        'test/support/helper.ts': 'export const HELPER = 1;\n',
        'lambdas/events/planted.ts':
          "import { HELPER } from '../../test/support/helper';\nexport const E = HELPER;\n",
        'lambdas/events/envelope.ts': 'export const createEvent = () => 1;\n',
        'lambdas/engine/builds-event.ts':
          "import { createEvent } from '../events/envelope';\nexport const BUILT = createEvent();\n",
        'lambdas/sources/builds-event.ts':
          "import { createEvent } from '../events/envelope';\nexport const PRODUCED = createEvent();\n",
      });
      // Prepare: the same rules, cruised over the planted tree (no tsconfig there)
      const { tsConfig: _unused, ...rules } = options;

      // Act
      result = await cruiseTree(dir, rules, ['lambdas', 'lib', 'cli'], true);
    });

    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('reports a never-arrow (common -> engine) with its rule', () => {
      // Assess
      expect(result.violations).toContain(
        'never-common-to-engine: lambdas/common/planted.ts -> lambdas/engine/poll.ts',
      );
    });

    it('reports an arrow nobody wrote a rule for (gym-api -> clubs) through the allow-list', () => {
      // Assess
      expect(result.violations).toContain(
        'gym-api-may-import-only: lambdas/gym-api/planted.ts -> lambdas/clubs/registry.ts',
      );
    });

    it('keeps the sandbox, local AWS endpoints, the CDK and the tests out of lambdas/, and lets the CLI in', () => {
      // Assess
      expect(result.violations).toEqual(
        expect.arrayContaining([
          'lambdas-hold-only-lambda-code: lambdas/sources/planted.ts -> sandbox/server.ts',
          'lambdas-hold-only-lambda-code: lambdas/handlers/planted.ts -> local-aws/endpoint.ts',
          'runtime-never-imports-cdk: lambdas/state/planted.ts -> lib/stack.ts',
          'runtime-never-imports-tests: lambdas/events/planted.ts -> test/support/helper.ts',
        ]),
      );
      expect(result.violations.filter((v) => !v.startsWith('no-import-cycles:'))).toHaveLength(7);
      expect(result.violations.filter((v) => v.includes('cli/'))).toEqual([]);
    });

    it('lets only the producers (sources/, lifecycle/; delivery) build events: the engine may not', () => {
      // Assess
      const building = result.violations.filter((v) => v.startsWith('only-producers-build-events:'));
      expect(building).toEqual([
        'only-producers-build-events: lambdas/engine/builds-event.ts -> lambdas/events/envelope.ts',
      ]);
    });

    it('reports two files that import each other (type-only imports count)', () => {
      // Assess
      const cycles = result.violations.filter((v) => v.startsWith('no-import-cycles:'));
      expect(cycles).toHaveLength(1);
      expect(cycles[0]).toMatch(
        /^no-import-cycles: lambdas\/engine\/ring-[ab]\.ts -> lambdas\/engine\/ring-[ab]\.ts$/,
      );
    });

    it('fails with a message naming the importing file, the imported file and the reason', () => {
      // Assess
      expect(result.exitCode).toBe(8);
      expect(result.report).toContain(
        'never-common-to-engine: lambdas/common/planted.ts → lambdas/engine/poll.ts',
      );
      expect(result.report).toContain('Common must not import Engine: common is the ground floor.');
    });
  });
});
