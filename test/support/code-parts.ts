/**
 * The parts of the code as .dependency-cruiser.cjs declares them (PARTS, and MAY, its allow-list):
 * the repository tests that walk the tree (import direction, size limits) take their folders from
 * here, so a new part is covered as soon as the import rule knows it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const DEPCRUISE_CONFIG = join(ROOT, '.dependency-cruiser.cjs');

export interface CodeParts {
  readonly PARTS: Record<string, { readonly paths: readonly string[] }>;
  readonly MAY: Record<string, readonly string[]>;
}

/** PARTS and MAY of .dependency-cruiser.cjs, as written there. */
export function codeParts(): CodeParts {
  const text = readFileSync(DEPCRUISE_CONFIG, 'utf8');
  const block = (name: string) => {
    const match = new RegExp(`const ${name} = (\\{[\\s\\S]*?\\n\\});`).exec(text);
    if (!match?.[1]) throw new Error(`${name} not found in ${DEPCRUISE_CONFIG}`);
    return new Function(`return (${match[1]});`)() as never;
  };
  return { PARTS: block('PARTS'), MAY: block('MAY') };
}

/** The top folders of every part (lambdas, cli, sandbox, ..., lib, bin, bench): all the code. */
export function codeTopFolders(): string[] {
  const { PARTS } = codeParts();
  return [...new Set(Object.values(PARTS).flatMap((part) => part.paths.map((p) => p.split('/')[0]!)))];
}
