/**
 * Reads the CLI's clubs file (docs/cli.md, "Clubs file") from disk. The schema and its messages are in
 * ./club-config.ts; this file only adds the reading and the JSON parse, neither of which echoes a
 * credential.
 */
import { readFile } from 'node:fs/promises';
import { basicLoginSecrets, rememberSecrets } from '../common/redact';
import { type ClubConfig, ClubConfigError, parseClubsFile } from './club-config';

export async function readClubsFile(path: string): Promise<ClubConfig[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    throw new ClubConfigError(
      code === 'ENOENT' ? `clubs file not found: ${path}` : `cannot read clubs file ${path} (${code})`,
      { cause },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    // V8's message quotes the text around the error ('..."password":hunter2"... is not valid
    // JSON'): report only where it is, and do not chain the SyntaxError as the cause.
    throw new ClubConfigError(`clubs file ${path} is not valid JSON${jsonErrorLocation(text, err)}`);
  }
  const clubs = parseClubsFile(json, `clubs file ${path}`);
  // What this process may print from now on is checked against these (the CLI's output pass).
  for (const { credentials } of clubs) {
    rememberSecrets(...basicLoginSecrets(credentials.username, credentials.password), credentials.apiKey);
  }
  return clubs;
}

/** ' (line L, column C)' from a JSON.parse error that gives a position, else ''. */
function jsonErrorLocation(text: string, err: unknown): string {
  const position = /at position (\d+)/.exec(err instanceof Error ? err.message : '')?.[1];
  if (position === undefined) return text.trim() === '' ? ' (the file is empty)' : '';
  const before = text.slice(0, Number(position)).split('\n');
  return ` (line ${before.length}, column ${before.at(-1)!.length + 1})`;
}
