/**
 * The files the README tells a user to create in the working tree (a clubs file with credentials,
 * events files with member data) are ignored by git, so they cannot be committed by accident.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const inGit = existsSync('.git');

describe.skipIf(!inGit)('.gitignore', () => {
  const ignored = (path: string): boolean => {
    try {
      execFileSync('git', ['check-ignore', '--no-index', '-q', path]);
      return true;
    } catch {
      return false;
    }
  };

  it.each(['clubs.json', 'events.jsonl', 'local-events.jsonl', 'clubs.local.json'])('ignores %s', (path) => {
    expect(ignored(path)).toBe(true);
  });

  it('still tracks the sources and docs', () => {
    expect(ignored('cli/main.ts')).toBe(false);
    expect(ignored('docs/upstream-api.md')).toBe(false);
    expect(ignored('test/cdk/fixtures/clubs.json')).toBe(false);
  });
});
