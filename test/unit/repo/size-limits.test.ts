/**
 * House rule 12 of the style guide, measured over all the code that ships, runs or measures: the
 * top folders of every part .dependency-cruiser.cjs declares (lambdas/, cli/, sandbox/, local-aws/,
 * event-tooling/, lib/, bin/, bench/; a new part is measured without an edit here). A file is read
 * whole (at most 400 lines, no exception) and a function fits on a screen (at most 80 lines). The handlers stay thin: each
 * Lambda's record or event handler under 60 lines, the folder under 400 lines in all (the engine
 * owns the decisions). The TypeScript parser finds every function: declarations, methods,
 * accessors, constructors, arrow functions and function expressions, nested ones measured on their
 * own. The tests and the examples are files read whole too: at most 400 lines each (their
 * `describe` callbacks are the outline of a file, not functions a reader steps through, so the
 * function limit is not applied to them).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { codeTopFolders, ROOT } from '../../support/code-parts';

const FOLDERS = codeTopFolders();
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;
const HANDLERS = 'lambdas/handlers';
const MAX_HANDLERS_LINES = 400;
/** The functions that handle one SQS record and one dispatch run: the Lambdas' domain entry points. */
const ENTRY_FUNCTIONS = [
  { file: 'lambdas/handlers/poll-record.ts', name: 'pollRecord' },
  { file: 'lambdas/handlers/dispatch-handler.ts', name: 'createDispatchHandler' },
  { file: 'lambdas/handlers/poll-handler.ts', name: 'createPollHandler' },
];

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

interface FunctionSpan {
  readonly name: string;
  readonly line: number;
  readonly lines: number;
}

function functionName(node: ts.Node, source: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name !== undefined) return named.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(source);
  return '(anonymous)';
}

/** Every function-like node of a file, with its length in lines (first to last line, inclusive). */
function functionSpans(path: string, text: string): FunctionSpan[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const spans: FunctionSpan[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as { body?: ts.Node }).body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      spans.push({ name: functionName(node, source), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return spans;
}

describe(`size limits of the code (${FOLDERS.join('/, ')}/)`, () => {
  const files = FOLDERS.flatMap(tsFiles);
  const lines = (file: string) => lineCount(readFileSync(join(ROOT, file), 'utf8'));

  it('finds the files it measures: every folder of code the import rule knows', () => {
    expect(FOLDERS).toEqual(
      expect.arrayContaining([
        'lambdas',
        'cli',
        'sandbox',
        'local-aws',
        'event-tooling',
        'lib',
        'bin',
        'bench',
      ]),
    );
    expect(files.length).toBeGreaterThan(300);
    for (const f of ENTRY_FUNCTIONS.map((e) => e.file)) expect(files).toContain(f);
  });

  const overFileLimit = (of: string[]) =>
    of
      .map((file) => ({ file, lines: lines(file) }))
      .filter(({ lines }) => lines > MAX_FILE_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);

  it(`keeps every file at or under ${MAX_FILE_LINES} lines`, () => {
    expect(overFileLimit(files)).toEqual([]);
  });

  it(`keeps every test and example file at or under ${MAX_FILE_LINES} lines`, () => {
    const tests = ['test', 'examples'].flatMap(tsFiles);
    expect(tests.length).toBeGreaterThan(300);
    expect(overFileLimit(tests)).toEqual([]);
  });

  it(`keeps every function at or under ${MAX_FUNCTION_LINES} lines`, () => {
    const over = files.flatMap((file) =>
      functionSpans(file, readFileSync(join(ROOT, file), 'utf8'))
        .filter((span) => span.lines > MAX_FUNCTION_LINES)
        .map((span) => `${relative(ROOT, join(ROOT, file))}:${span.line} ${span.name}: ${span.lines} lines`),
    );
    expect(over).toEqual([]);
  });

  it(`keeps the handlers thin: under ${MAX_HANDLERS_LINES} lines in all, each entry function under 60`, () => {
    const handlers = files.filter((f) => f.startsWith(`${HANDLERS}/`));
    expect(handlers.reduce((n, f) => n + lines(f), 0)).toBeLessThan(MAX_HANDLERS_LINES);
    for (const { file, name } of ENTRY_FUNCTIONS) {
      const span = functionSpans(file, readFileSync(join(ROOT, file), 'utf8')).find((s) => s.name === name);
      expect(span, `${file}: ${name}`).toBeDefined();
      expect(span!.lines, `${file}: ${name}`).toBeLessThan(60);
    }
  });

  it('measures a function as the parser sees it (a planted 61-line function is caught)', () => {
    const body = Array.from({ length: 59 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const spans = functionSpans(
      'planted.ts',
      `export function planted() {\n${body}\n}\nconst f = () => 1;\n`,
    );
    expect(spans).toEqual([
      { name: 'planted', line: 1, lines: 61 },
      { name: 'f', line: 62, lines: 1 },
    ]);
  });
});
