/**
 * A paused club is visible and reversible, and every log line of a failing poll keeps its reason
 * (issue 12). The sandbox over real HTTP, state in dynalite, the runtime logger captured.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { run as clubsCommand } from '../../../cli/commands/clubs';
import { clubStatus, renderStatus } from '../../../cli/commands/status';
import type { ClubConfig } from '../../../lambdas/clubs/club-config';
import { type ClubReport, pollClub, UNAVAILABLE_RETRY_MS } from '../../../lambdas/engine/club-poll/poll-club';
import { resumeClub } from '../../../lambdas/engine/club-poll/resume-club';
import { MemorySink } from '../../../lambdas/events/publisher';
import { SOURCE_ORDER } from '../../../lambdas/sources';
import { DynamoDbStateStore, type SourceName, type StateStore, StoreError } from '../../../lambdas/state';
import { ClubBusyError } from '../../../lambdas/state/state-store';
import { useEngineRig } from '../../support/engine-rig';
import {
  captureLogs,
  type LogCapture,
  type LogLine,
  logProblems,
  reasonText,
} from '../../support/log-capture';

const MINUTE = 60_000;

/** A store whose seen-key and cursor writes fail (throttled past all retries), on demand. */
const WRITES = new Set(['putSeen', 'putSeenAt', 'putCursor', 'putSnapshots', 'checkpoint', 'close']);

/** The store, and the sessions it opens, with every write failing while `failing()`. */
function failingWrites<T extends object>(inner: T, failing: () => boolean): T {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (prop === 'openClub') {
        return async (...args: unknown[]) => {
          const session = await value.apply(target, args);
          return session && failingWrites(session, failing);
        };
      }
      if (WRITES.has(String(prop))) {
        return (...args: unknown[]) =>
          failing()
            ? Promise.reject(
                new StoreError(`${String(prop)}: ProvisionedThroughputExceededException past all retries`),
              )
            : value.apply(target, args);
      }
      return value.bind(target);
    },
  });
}

describe('failing polls: the pause is visible and reversible, every log line keeps its reason', () => {
  const rig = useEngineRig({
    sandbox: () => ({
      seed: 31,
      clubs: [{ clubId: 'club-1', timeZone: 'Europe/London', members: 50, open24h: true }],
      historyDays: 1,
      // Real time: the CLI (clubs resume) judges the pause with the real clock.
      startTime: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString(),
      activityScale: 6,
    }),
    clients: { retry: { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 2, maxQuotaDelayMs: 0 } },
    pollMs: 30_000,
  });
  const { clients, now, deadline } = rig;
  let tableName: string;
  let store: DynamoDbStateStore;
  let club: ClubConfig;
  let logs: LogCapture | undefined;

  beforeEach(async () => {
    tableName = await rig.newTable('pause');
    store = new DynamoDbStateStore({ client: rig.db.client, tableName });
    club = rig.firstClub();
  });
  afterEach(() => {
    logs?.stop();
    logs = undefined;
    vi.unstubAllEnvs();
  });

  const poll = (c: ClubConfig, s: StateStore = store, sources?: SourceName[]): Promise<ClubReport> =>
    pollClub({ store: s, sink: new MemorySink(), clients, owner: 'pause', now }, c, {
      deadlineMs: deadline(),
      ...(sources ? { sources } : {}),
    });
  const failureLines = (lines: readonly LogLine[]) =>
    lines.filter((l) => l.level === 'ERROR' || l.level === 'WARN' || l.level === 'CRITICAL');

  it('rejected credentials: the report and status say why and until when; clubs resume clears it at once', async () => {
    // Prepare: a baseline, then the club's API key is rotated upstream (ours is now wrong)
    expect((await poll(club)).outcome).toBe('ok');
    rig.sandbox.advance(5 * MINUTE);
    const wrongKey = { ...club, credentials: { ...club.credentials, apiKey: 'rotated-elsewhere' } };
    logs = captureLogs();

    // Act: the poll that is refused, then one during the pause
    const refused = await poll(wrongKey);
    const paused = await poll(wrongKey);

    // Assess: why and until when, on both
    expect(refused.outcome).toBe('failed');
    expect(refused.pause).toMatchObject({ kind: 'auth', source: 'members', consecutiveFailures: 1 });
    expect(refused.pause?.reason).toMatch(/HTTP 401/);
    expect(refused.pause?.until).toBe(refused.pausedUntil);
    expect(paused.outcome).toBe('paused');
    expect(paused.pausedUntil).toBe(refused.pausedUntil);
    expect(paused.pause).toMatchObject({
      until: refused.pausedUntil,
      kind: 'auth',
      source: 'members',
      reason: refused.pause?.reason,
    });
    expect(paused.requests).toBe(0);
    // Every ERROR/WARN line of the refused poll says why, and no reserved key was passed.
    expect(failureLines(logs.lines).length).toBeGreaterThan(0);
    expect(logProblems(logs.lines)).toEqual([]);
    const failed = logs.lines.find((l) => l.message === 'source poll failed');
    expect(reasonText(failed!)).toMatch(/HTTP 401 \(apiKey rejected/);
    expect(JSON.stringify(logs.lines)).not.toContain('rotated-elsewhere');

    // status shows the pause
    const status = await clubStatus(store, [club], now());
    expect(status[0]!.pause).toMatchObject({ kind: 'auth', until: refused.pausedUntil });
    expect(status[0]!.sources.every((s) => s.state === 'paused')).toBe(true);
    const table = renderStatus(status, now(), tableName, 'clubs.json');
    expect(table).toContain(`club-1: PAUSED until ${refused.pausedUntil} (credentials rejected on members`);
    expect(table).toContain(
      `clubs resume --table ${tableName} --club-id club-1 (or poll --clubs clubs.json --table ${tableName} --resume)`,
    );

    // Act: the operator fixes the key and resumes through the CLI (the deployed table's command)
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', rig.db.endpoint);
    vi.stubEnv('AWS_REGION', 'us-east-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'x');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'x');
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    let code: number;
    try {
      code = await clubsCommand(['resume', '--table', tableName, '--club-id', 'club-1']);
    } finally {
      write.mockRestore();
    }
    const resumed = await poll(club);

    // Assess: resumed at once, polled, and the pause is gone from status
    expect(code).toBe(0);
    expect(out.join('')).toMatch(/club-1: resumed/);
    expect(out.join('')).toMatch(
      /members: pause until \S+ cleared; 1 failures in a row reset; last error: auth: /,
    );
    expect(resumed.outcome).toBe('ok');
    expect(resumed.pause).toBeUndefined();
    expect((await clubStatus(store, [club], now()))[0]!.pause).toBeNull();
    const members = await store.view(club.clubId).getCursor('members');
    expect(members.health.pausedUntil).toBeUndefined();
    expect(members.health.consecutiveFailures).toBe(0);
  }, 60_000);

  it('resumeClub: versioned, says what it cleared, and clears unavailable marks only when asked', async () => {
    // Prepare: classAttendance listed and missing (404), then a 429 pauses the club
    const all = { ...club, sources: [...SOURCE_ORDER] };
    rig.sandbox.failNext(1, 404, { pathPrefix: '/members/attendance/classes' });
    await poll(all);
    rig.sandbox.advance(5 * MINUTE);
    rig.sandbox.failNext(1, 429, { pathPrefix: '/members' });
    const limited = await poll(all);
    expect(limited.pause).toMatchObject({ kind: 'quota' });
    const before = await store.view(club.clubId).listCursors();

    // Act
    const first = await resumeClub(store, club.clubId, now());
    const again = await resumeClub(store, club.clubId, now());
    const withMarks = await resumeClub(store, club.clubId, now(), { retryUnavailable: true });

    // Assess
    expect(first.resumed).toEqual([
      expect.objectContaining({ source: 'members', pauseWasActive: true, consecutiveFailures: 1 }),
    ]);
    expect(first.resumed[0]!.lastError).toMatch(/^quota: .*HTTP 429/);
    expect(again.resumed).toEqual([]);
    expect(withMarks.resumed).toEqual([
      expect.objectContaining({
        source: 'classAttendance',
        unavailable: expect.objectContaining({ status: 404 }),
      }),
    ]);
    const after = new Map((await store.view(club.clubId).listCursors()).map((c) => [c.source, c]));
    for (const c of before) {
      const changed = c.source === 'members' || c.source === 'classAttendance';
      expect(after.get(c.source)!.version, c.source).toBe(changed ? c.version + 1 : c.version);
    }
    const resumedPoll = await poll(all);
    expect(resumedPoll.outcome).toBe('ok');
    expect(resumedPoll.sources.find((s) => s.source === 'classAttendance')?.outcome).toBe('completed');
    expect(UNAVAILABLE_RETRY_MS).toBe(6 * 60 * MINUTE);
  }, 60_000);

  it('resumeClub while a poll holds the club: refused with the reason, nothing changed', async () => {
    // Prepare: a 429 pauses the club; then a poller holds its lease
    rig.sandbox.failNext(1, 429, { pathPrefix: '/members' });
    expect((await poll(club)).pause).toMatchObject({ kind: 'quota' });
    const before = await store.view(club.clubId).listCursors();
    const holder = await store.openClub(club.clubId, 'another-poller', 10 * MINUTE, Date.now());
    expect(holder).toBeDefined();

    // Act
    const refused = await resumeClub(store, club.clubId, now()).catch((err: unknown) => err);

    // Assess
    expect(refused).toBeInstanceOf(ClubBusyError);
    expect(String((refused as Error).message)).toMatch(/is being polled right now; nothing was changed/);
    expect(await store.view(club.clubId).listCursors()).toEqual(before);
    await holder!.close();
    expect((await resumeClub(store, club.clubId, now())).resumed).toHaveLength(1);
  }, 60_000);

  it('an API that answers 5xx: every ERROR/WARN line carries the upstream error', async () => {
    // Prepare
    await poll(club);
    rig.sandbox.advance(5 * MINUTE);
    rig.sandbox.faults.errorRate5xx = 1;
    logs = captureLogs();
    // Act
    const report = await poll(club, store, ['visits', 'paymentHistory']);
    // Assess
    rig.sandbox.faults.errorRate5xx = 0;
    expect(report.outcome).toBe('failed');
    expect(report.failures.map((f) => f.kind)).toEqual(['unavailable', 'unavailable']);
    const failed = logs.lines.filter((l) => l.message === 'source poll failed');
    expect(failed).toHaveLength(2);
    for (const line of failed) expect(reasonText(line)).toMatch(/HTTP 50\d/);
    expect(logProblems(logs.lines)).toEqual([]);
  }, 60_000);

  it('a store that cannot write: the poll fails with the store error, in the log too', async () => {
    // Prepare
    await poll(club);
    rig.sandbox.advance(30 * MINUTE);
    let failing = true;
    const broken = failingWrites(store, () => failing);
    logs = captureLogs();
    // Act: the poll cannot store what it did either (its close fails): it fails as a whole, so the
    // poll message comes back instead of being deleted (issue 17, fencing)
    const polling = poll(club, broken, ['visits', 'members']);
    await expect(polling).rejects.toThrow(/close: ProvisionedThroughputExceededException/);
    failing = false;
    // Assess: each source's failure logged with its reason, and recording it failed too (said)
    const lines = failureLines(logs.lines);
    expect(lines.some((l) => l.message === 'source poll failed')).toBe(true);
    expect(lines.filter((l) => l.message === 'source poll failed').every((l) => l.kind === 'store')).toBe(
      true,
    );
    expect(lines.some((l) => l.message === 'could not record a failed poll')).toBe(true);
    for (const line of lines) expect(reasonText(line)).toMatch(/ProvisionedThroughputExceededException/);
    expect(logProblems(logs.lines)).toEqual([]);
  }, 60_000);
});
