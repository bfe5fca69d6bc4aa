/**
 * The maps written in prose name files that exist: the docs (README, docs/, examples' READMEs; not
 * CHANGELOG, which is history) and the header comment of every code file (the first `/** ... *\/`
 * block, where a module says where its parts live). A path named there (`lambdas/engine/poll-club.ts`,
 * `club-poll/announcer.ts`, `../infra/x.ts`) must be the end of a file git tracks; a bare `.ts`
 * name (`failure-policy.ts`) the name of one. A file moved or renamed without its maps fails here,
 * with every stale mention listed. A path inside a URL is the other site's, not checked; `.json`
 * paths are not checked (they are mostly outputs and users' files: `clubs.json`, `tmp/x.json`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .trim()
  .split('\n')
  .filter((f) => existsSync(join(ROOT, f))); // not one deleted in the work tree
const names = new Set(tracked.map((f) => f.slice(f.lastIndexOf('/') + 1)));

/** `a/b/c.ts` (with leading ./ or ../ parts), not inside a URL or a longer word. */
const PATH = /(?<![\w@./:-])((?:\.{1,2}\/)*(?:[\w-][\w.-]*\/)+[\w.-]+\.(?:ts|md|cjs))(?![\w/-])/g;
/** `name.ts` alone. */
const BARE = /(?<![\w@./:-])([A-Za-z][\w-]*\.ts)(?![\w/-])/g;

const isDoc = (f: string) => f.endsWith('.md') && f !== 'CHANGELOG.md' && !f.startsWith('test/');
const isCode = (f: string) => f.endsWith('.ts') && !f.startsWith('test/') && !f.endsWith('.d.ts');

/** The text a file's maps are in: a doc whole, a code file's header comment. */
function mapText(file: string): string {
  const text = readFileSync(join(ROOT, file), 'utf8');
  if (!file.endsWith('.ts')) return text;
  return /^\s*\/\*\*[\s\S]*?\*\//.exec(text)?.[0] ?? '';
}

function staleMentions(file: string): string[] {
  const text = mapText(file);
  const stale: string[] = [];
  for (const [, path] of text.matchAll(PATH)) {
    const tail = path!.replace(/^(\.{1,2}\/)+/, '');
    if (!tracked.some((f) => f === tail || f.endsWith(`/${tail}`))) stale.push(`${file}: ${path}`);
  }
  if (file.endsWith('.ts'))
    for (const [, name] of text.matchAll(BARE)) if (!names.has(name!)) stale.push(`${file}: ${name}`);
  return stale;
}

describe('the maps in docs and module headers', () => {
  it('read some of each kind (the scan is not empty)', () => {
    const docs = tracked.filter(isDoc);
    const code = tracked.filter(isCode);
    expect(docs).toContain('docs/architecture.md');
    expect(code.length).toBeGreaterThan(300);
    const mentions = [...mapText('docs/architecture.md').matchAll(PATH)].length;
    expect(mentions).toBeGreaterThan(20);
  });

  it('name only files that exist', () => {
    const stale = tracked.filter((f) => isDoc(f) || isCode(f)).flatMap(staleMentions);
    expect(stale).toEqual([]);
  });

  it('would report a moved file', () => {
    expect(
      [...'see lambdas/engine/no-such-file.ts and `club-poll/announcer.ts`'.matchAll(PATH)].map((m) => m[1]),
    ).toEqual(['lambdas/engine/no-such-file.ts', 'club-poll/announcer.ts']);
    expect(tracked.some((f) => f.endsWith('/no-such-file.ts'))).toBe(false);
    expect(tracked.some((f) => f.endsWith('/club-poll/announcer.ts'))).toBe(true);
  });
});
