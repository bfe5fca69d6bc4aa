/**
 * `npm run build:events` (schemas --package DIR): the @gym-bridge/events package a consumer outside
 * this repository installs. Built into a scratch consumer project's node_modules, it type-checks
 * a handler with the strictest resolution (NodeNext, skipLibCheck off, no @types/node), a planted
 * typo fails to compile, and the built JavaScript parses a published event under plain Node.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderAsyncApiJson } from '../../../event-tooling/asyncapi';
import { buildEventsPackage } from '../../../event-tooling/build-package';
import { exampleEvents } from '../../../event-tooling/examples';
import { allEventJsonSchemas, DETAIL_TYPES } from '../../../lambdas/events/catalog';
import { deliveredEvent } from '../../unit/events/eventbridge-delivery';

const run = promisify(execFile);
const ROOT = process.cwd();

const GOOD = `
import { DETAIL_TYPES, type PaymentFailed, type PaymentFailedEvent, parseBridgeEvent, PaymentFailedDetail } from '@gym-bridge/events';
export function handle(event: unknown): string {
  const parsed: PaymentFailedEvent = parseBridgeEvent(event, DETAIL_TYPES.PaymentFailed);
  const detail: PaymentFailed = parsed.detail;
  const again: PaymentFailed = PaymentFailedDetail.parse(detail);
  switch (again.reason) {
    case 'declined': return 'declined ' + detail.paymentId;
    case 'dishonoured': return 'dishonoured ' + (detail.previousResponse ?? '');
    case 'unknown-response': return 'unknown ' + detail.response;
  }
}
`;

const BAD = `
import { DETAIL_TYPES, type PaymentFailed } from '@gym-bridge/events';
export const typo = DETAIL_TYPES.PaymentFaild;
export const field = (detail: PaymentFailed) => detail.reasn;
`;

const RUN = `
import { readFileSync } from 'node:fs';
import { parseBridgeEvent, EventParseError } from '@gym-bridge/events';
const event = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const parsed = parseBridgeEvent(event, 'Payment Failed');
let refused = '';
try { parseBridgeEvent({ ...event, detail: { ...event.detail, reason: 'maybe' } }); } catch (e) { refused = e instanceof EventParseError ? e.issues.map((i) => i.path).join() : String(e); }
console.log(JSON.stringify({ reason: parsed.detail.reason, eventId: parsed.detail.eventId, refused }));
`;

let project: string;
let pkg: string;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'gym-bridge-consumer-'));
  pkg = join(project, 'node_modules', '@gym-bridge', 'events');
  await buildEventsPackage(pkg);
  await symlink(join(ROOT, 'node_modules', 'zod'), join(project, 'node_modules', 'zod'), 'dir');
  await mkdir(join(project, 'src'));
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  await writeFile(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: [],
      },
      include: ['src'],
    }),
  );
  await writeFile(join(project, 'src', 'handler.ts'), GOOD);
  await writeFile(join(project, 'src', 'typo.ts'), BAD);
  await writeFile(join(project, 'run.mjs'), RUN);
}, 60_000);

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

describe('the built @gym-bridge/events package', () => {
  it('has its package.json, JSON Schemas and AsyncAPI document', async () => {
    const manifest = JSON.parse(await readFile(join(pkg, 'package.json'), 'utf8'));
    expect(manifest.name).toBe('@gym-bridge/events');
    expect(manifest.exports['.']).toEqual({ types: './index.d.ts', default: './index.js' });
    expect(Object.keys(manifest.peerDependencies)).toEqual(['zod']);
    expect(manifest.dependencies).toBeUndefined();
    const failed = JSON.parse(await readFile(join(pkg, 'schemas', 'payment-failed.json'), 'utf8'));
    expect(failed).toEqual(allEventJsonSchemas()['Payment Failed']);
    expect(await readFile(join(pkg, 'asyncapi.json'), 'utf8')).toBe(renderAsyncApiJson());
    // zod stays a shared import; nothing else is imported.
    const js = await readFile(join(pkg, 'index.js'), 'utf8');
    expect([...js.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1])).toEqual(
      expect.arrayContaining(['zod']),
    );
    expect(new Set([...js.matchAll(/from "([^"]+)"/g)].map((m) => m[1]))).toEqual(new Set(['zod']));
  });

  it('type-checks a consumer (NodeNext, no skipLibCheck); a planted typo fails to compile', async () => {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', '.', '--pretty', 'false'], { cwd: project }).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );
    expect(result.code).not.toBe(0);
    const errors = result.stdout.trim().split('\n');
    expect(errors.filter((line) => !line.startsWith('src/typo.ts('))).toEqual([]);
    expect(errors.map((line) => /error (TS\d+)/.exec(line)?.[1])).toEqual(['TS2551', 'TS2551']);
    expect(result.stdout).toContain("'PaymentFaild'");
    expect(result.stdout).toContain("'reasn'");
  }, 60_000);

  it('runs under plain Node: parses a published event and refuses a malformed one by path', async () => {
    const file = join(project, 'event.json');
    const example = exampleEvents()[DETAIL_TYPES.PaymentFailed];
    await writeFile(file, JSON.stringify(deliveredEvent(example)));
    const { stdout } = await run(process.execPath, [join(project, 'run.mjs'), file], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({
      reason: 'dishonoured',
      eventId: example.detail.eventId,
      refused: 'detail.reason',
    });
  }, 30_000);
});
