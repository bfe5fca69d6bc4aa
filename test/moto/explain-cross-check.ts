/**
 * Cross-check of `explain` and of the state store's new methods (listSnapshots, the seen entries'
 * memos, the lifecycle document) against a second implementation of DynamoDB: moto_server. NOT
 * part of `npm test` (which must not need Python): run it by hand.
 *
 *   npx tsx test/moto/explain-cross-check.ts
 *   MOTO_ENDPOINT=http://127.0.0.1:5000 npx tsx test/moto/explain-cross-check.ts
 *
 * The CLI polls a sandbox into a table on moto (a baseline, three hours, a second poll), as it
 * would a deployed table; `explain --json` then names the events that poll published for a member
 * and a payment. The store is read directly too: every member listed, a memo on every visit
 * entry, a lifecycle document put, read back and refused on a stale version.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { decodeSeenDigest } from '../../lambdas/engine/scan/seen-digest';
import { readKeptLifecycle } from '../../lambdas/lifecycle/lifecycle-keep';
import { DynamoDbStateStore } from '../../lambdas/state';
import { LifecycleConflictError } from '../../lambdas/state/lifecycle-items';
import { startSandbox } from '../../sandbox';
import { localAwsEnv, runCli } from '../support/cli-process';
import { startMoto } from './moto-server';

interface Line {
  detailType: string;
  detail: { eventId: string; source: string; subject: { memberNumber?: string }; paymentId?: string };
}

async function main(): Promise<void> {
  const moto = await startMoto();
  const sandbox = await startSandbox({
    seed: 21,
    clubs: [{ clubId: 'club-1', timeZone: 'Australia/Sydney', open24h: true }],
    members: 120,
    historyDays: 2,
    activityScale: 40,
  });
  const dir = await mkdtemp(join(tmpdir(), 'gym-bridge-explain-moto-'));
  try {
    const clubs = join(dir, 'clubs.json');
    await sandbox.writeClubsFile(clubs);
    const env = localAwsEnv(moto.endpoint);
    const file = join(dir, 'events.jsonl');
    const poll = ['poll', '--clubs', clubs, '--table', 'explain-moto', '--events-file', file, '--once'];
    const first = await runCli([...poll, '--create-table'], env, { timeoutMs: 120_000 });
    assert.equal(first.code, 0, first.stderr);
    sandbox.advance(3 * 3_600_000);
    const second = await runCli(poll, env, { timeoutMs: 120_000 });
    assert.equal(second.code, 0, second.stderr);
    const events = (await readFile(file, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line);

    const member = events.find((e) => e.detail.source === 'members');
    assert.ok(member, 'a member event in the second poll');
    const number = member.detail.subject.memberNumber!;
    const explain = (...args: string[]) =>
      runCli(['explain', '--clubs', clubs, '--club', 'club-1', '--table', 'explain-moto', ...args], env);
    const json = await explain('--member', number, '--json');
    assert.equal(json.code, 0, json.stderr);
    const facts = JSON.parse(json.stdout) as {
      published: { eventId: string }[];
      source: { polled: boolean };
      lifecycle: { trackedSince: string | null; lastEvaluation: string | null } | null;
    };
    // The polls evaluated the lifecycle rules (silently, the first time) and explain reads it back.
    assert.ok(
      facts.lifecycle?.trackedSince && facts.lifecycle.lastEvaluation,
      JSON.stringify(facts.lifecycle),
    );
    const mine = events.filter(
      (e) => e.detail.source === 'members' && e.detail.subject.memberNumber === number,
    );
    assert.deepEqual(
      facts.published.map((e) => e.eventId).sort(),
      mine
        .map((e) => e.detail.eventId)
        .slice(-3)
        .sort(),
    );
    assert.equal(facts.source.polled, true);
    const payment = events.find(
      (e) => e.detailType === 'Payment Succeeded' || e.detailType === 'Payment Failed',
    );
    assert.ok(payment, 'a payment event in the second poll');
    const paid = await explain('--payment', payment.detail.paymentId!);
    assert.ok(paid.stdout.includes(`${payment.detailType} ${payment.detail.eventId}`), paid.stdout);
    console.log(
      `explain on moto: member ${number} (${mine.length} events), payment ${payment.detail.paymentId}: ok`,
    );

    const store = new DynamoDbStateStore({
      client: new DynamoDBClient({
        endpoint: moto.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      }),
      tableName: 'explain-moto',
    });
    const listed = await store.parts.snapshots.listSnapshots('club-1', 'MEMBER');
    assert.ok(listed.has(number) && listed.size >= 100, `listSnapshots: ${listed.size}`);
    const visits = await store.parts.seen.seenEntriesSince(
      'club-1',
      'visits',
      '2000-01-01T00:00:00.000Z',
      Math.floor(Date.now() / 1000),
    );
    assert.ok(
      visits.length > 0 && visits.every((v) => typeof v.memo === 'string' && v.memo !== ''),
      'visit memos',
    );
    // The document the polls kept: put again on its version, refused on a stale one.
    const kept = await store.parts.lifecycle.getLifecycle('club-1');
    assert.ok(
      kept && (kept.doc as { version?: number }).version === 1,
      'the polls kept a lifecycle document',
    );
    assert.equal(
      await store.parts.lifecycle.putLifecycle('club-1', kept.doc, kept.version),
      kept.version + 1,
    );
    assert.deepEqual(await store.parts.lifecycle.getLifecycle('club-1'), {
      doc: kept.doc,
      version: kept.version + 1,
    });
    await assert.rejects(
      store.parts.lifecycle.putLifecycle('club-1', kept.doc, kept.version),
      LifecycleConflictError,
    );
    const consistent = await store.parts.snapshots.listSnapshots('club-1', 'MEMBER', {
      consistentRead: true,
    });
    assert.equal(consistent.size, listed.size, 'a strongly consistent list');
    const got = await store.parts.snapshots.getSnapshots('club-1', 'MEMBER', [number], {
      consistentRead: true,
    });
    assert.deepEqual(got.get(number), listed.get(number), 'a strongly consistent BatchGetItem');
    // The kept state as the evaluation reads it (base and delta), and the delta's own version.
    const merged = await readKeptLifecycle(store.view('club-1'), 'club-1');
    assert.ok(merged?.view && Object.keys(merged.view.members).length >= 100, 'the base keeps the view');
    const delta = await store.parts.lifecycle
      .putLifecycle('club-1', { note: 'moto' }, 0, 'delta')
      .catch(() => 'exists');
    assert.ok(delta === 1 || delta === 'exists', 'the delta is an item of its own');
    // A session that stops without its close: the next one (after its lease) reads the notes as full.
    const stopped = await store.openClub('club-1', 'moto-a', 1_000, Date.now());
    stopped?.noteLifecycle({ members: [number] });
    await stopped?.checkpoint();
    const next = await store.openClub('club-1', 'moto-b', 60_000, Date.now() + 5_000);
    assert.deepEqual(next?.lifecycleNotes(), { full: true }, 'a stop is seen by the next session');
    await next?.close();
    // The seen digests the polls' long windows put (binary item), read back and decoded.
    const digests: Record<string, number> = {};
    for (const source of ['disbursements', 'paymentHistory'] as const) {
      const bytes = await store.parts.seen.getSeenDigest('club-1', source, Math.floor(Date.now() / 1000));
      const buckets = bytes && decodeSeenDigest(bytes);
      assert.ok(buckets && buckets.length > 0, `the ${source} seen digest is stored and readable`);
      digests[source] = buckets.length;
    }
    console.log(
      `store on moto: ${listed.size} members listed (also strongly consistent), ${visits.length} visit entries with a memo, the polls' lifecycle base v${kept.version} put again and refused on a stale version, its view and delta read back, a stopped session's notes read as full, seen digests of ${digests.disbursements} and ${digests.paymentHistory} buckets: ok`,
    );
  } finally {
    await sandbox.close();
    moto.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
