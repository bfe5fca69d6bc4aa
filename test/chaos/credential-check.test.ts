/**
 * The chaos suite's credential check is not vacuous (issue 32): a credential written with JSON
 * escapes in an event, in a gzip-compressed table item or in a log line of any level fails the run,
 * and one bearer token the bridge sent counts as a credential. `CredentialWatch` captures the
 * logger's lines and lets every other write through.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClubsFile } from '../../lambdas/clubs/club-config';
import { logger } from '../../lambdas/common/logger';
import type { BridgeEvent } from '../../lambdas/events/catalog';
import type { FetchFn } from '../../lambdas/gym-api';
import { MemoryStateStore } from '../../lambdas/state';
import { type Sandbox, startSandbox } from '../../sandbox';
import { accountPoison, CredentialWatch } from './poison-check';

/** Every UTF-16 unit as a `\u` escape in upper-case hex (what a .NET upstream may write). */
const escaped = (text: string) =>
  text
    .split('')
    .map((u) => `\\u${u.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`)
    .join('');

describe('the chaos credential check', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ seed: 5, clubs: 1, members: 5, historyDays: 1 });
  });
  afterAll(() => sandbox.close());

  const run = () => ({
    club: parseClubsFile(sandbox.clubsFile())[0]!,
    inspectionStore: new MemoryStateStore(),
  });

  it('passes a run that wrote no credential', async () => {
    const failures: string[] = [];
    const watch = new CredentialWatch();
    watch.start();
    logger.debug('an ordinary line', { reason: 'nothing secret \\u0041' });
    watch.stop();
    const event = { detailType: 'Member Visit Recorded', detail: { data: { Door: 'Main' } } };
    await accountPoison(sandbox, [event as unknown as BridgeEvent], run(), failures, {
      watch,
      tableItems: [],
    });
    expect(failures).toEqual([]);
  });

  it('fails a run whose event, table item or log line holds a credential written with escapes', async () => {
    // Prepare: the club's API key escaped in an event, the password in a gzipped item, the
    // username in a DEBUG line, a bearer token the bridge sent in an ERROR line
    const { username, password } = sandbox.integrator;
    const club = run().club;
    const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXNpZ25hdHVyZQ';
    const watch = new CredentialWatch();
    const sent: FetchFn = async () => new Response('{}');
    await watch.watchFetch(sent)('http://127.0.0.1/v1/members', {
      headers: { authorization: `Bearer ${token}` },
    });
    watch.start();
    try {
      logger.debug('an echo', { reason: `login ${escaped(username)}` });
      logger.error('another', { error: `sig ${token.split('.')[2]}` });
    } finally {
      watch.stop();
    }
    const event = {
      detailType: 'Member Visit Recorded',
      detail: { data: { Door: JSON.parse(`"${escaped(club.credentials.apiKey)}"`) } },
    };
    const item = { pk: { S: 'CLUB#club-1' }, c: { B: gzipSync(`{"raw":"${escaped(password)}"}`) } };
    const failures: string[] = [];
    // Act
    await accountPoison(sandbox, [event as unknown as BridgeEvent], run(), failures, {
      watch,
      tableItems: [item],
    });
    // Assess
    expect(failures).toEqual(
      expect.arrayContaining([
        'a credential in an event: API key',
        'a credential in a table item: password',
        'a credential in a log line: username',
        'a credential in a log line: bearer token signature',
      ]),
    );
  });

  it('lets every write that is not a log line through while watching', () => {
    const watch = new CredentialWatch();
    const written: string[] = [];
    const original = process.stdout.write;
    process.stdout.write = ((chunk: string) => {
      written.push(chunk);
      return true;
    }) as typeof process.stdout.write;
    try {
      watch.start();
      process.stdout.write('a progress line\n');
      logger.info('a log line');
      watch.stop();
    } finally {
      process.stdout.write = original;
    }
    expect(written).toEqual(['a progress line\n']);
    expect(watch.lines()).toEqual([expect.objectContaining({ message: 'a log line', level: 'INFO' })]);
  });
});
