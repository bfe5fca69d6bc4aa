/**
 * The runtime logger is used through its own API only: no code that imports it (lambdas/, cli/,
 * sandbox/, local-aws/, event-tooling/, lib/, bench/) reaches into Powertools' private members (its
 * `console`) or swaps one of its methods at run time. Where its lines go is the logger's `output`
 * (lambdas/common/logger.ts); a new patch fails here, named.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const FOLDERS = ['lambdas', 'cli', 'sandbox', 'local-aws', 'event-tooling', 'lib', 'bench'];

/** What reaching around the logger's API looks like. */
const PATCHES: readonly { readonly what: string; readonly pattern: RegExp }[] = [
  { what: 'Reflect.set', pattern: /\bReflect\.(?:set|defineProperty)\s*\(/ },
  { what: "a logger's console", pattern: /\.console\s*=(?!=)|\[\s*['"]console['"]\s*\]|['"]console['"]\s*,/ },
  { what: 'a logger method replaced', pattern: /\blog(?:ger)?\.\w+\s*=(?!=)/ },
];

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const importsLogger = (text: string) => /from\s+['"][./]*(?:lambdas\/)?common\/logger['"]/.test(text);

describe("the runtime logger's seams", () => {
  it('no module that uses the logger patches its internals', () => {
    const found: string[] = [];
    for (const file of FOLDERS.flatMap(tsFiles)) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      if (!importsLogger(text)) continue;
      text.split('\n').forEach((line, i) => {
        for (const { what, pattern } of PATCHES) {
          if (pattern.test(line)) found.push(`${file}:${i + 1}: ${what}: ${line.trim()}`);
        }
      });
    }
    expect(found).toEqual([]);
  });
});
