import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DETAIL_TYPES } from '../../../lambdas/events/catalog';
import { parseJsonLines } from '../../../lambdas/events/json-lines-file-sink';
import { JsonLinesFileSink, MemorySink, PublishError } from '../../../lambdas/events/publisher';
import { visitEvents } from './fixtures';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gym-bridge-sinks-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('JsonLinesFileSink', () => {
  it('appends one {source, detailType, time, detail} object per line, creating the directory', async () => {
    const path = join(dir, 'nested', 'events.jsonl');
    const sink = new JsonLinesFileSink(path, { source: 'test.bridge' });
    const events = visitEvents(3);
    await sink.publish(events.slice(0, 2));
    await sink.publish(events.slice(2));

    const text = await readFile(path, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const records = parseJsonLines(text);
    expect(records).toEqual(
      events.map((e) => ({
        source: 'test.bridge',
        detailType: DETAIL_TYPES.MemberVisitRecorded,
        time: e.detail.occurredAt,
        detail: e.detail,
      })),
    );
  });

  it('keeps concurrent publishes whole and in call order', async () => {
    const path = join(dir, 'events.jsonl');
    const sink = new JsonLinesFileSink(path);
    const batches = [visitEvents(5, 'a'), visitEvents(5, 'b'), visitEvents(5, 'c')];
    await Promise.all(batches.map((b) => sink.publish(b)));
    const clubs = parseJsonLines(await readFile(path, 'utf8')).map((r) => r.detail.clubId);
    expect(clubs).toEqual([...'aaaaabbbbbccccc']);
  });

  it('throws PublishError with the eventIds when it cannot write, and keeps working afterwards', async () => {
    await writeFile(join(dir, 'file'), 'not a directory');
    const broken = new JsonLinesFileSink(join(dir, 'file', 'events.jsonl'));
    const events = visitEvents(2);
    await expect(broken.publish(events)).rejects.toMatchObject({
      name: 'PublishError',
      failedEventIds: events.map((e) => e.detail.eventId),
    });
    await expect(broken.publish([])).resolves.toBeUndefined();
  });

  it('skips a torn last line but not a corrupt line in the middle', () => {
    const good = JSON.stringify({ source: 's', detailType: 'd', time: 't', detail: {} });
    expect(parseJsonLines(`${good}\n${good}\n{"source":"s","det`)).toHaveLength(2);
    expect(() => parseJsonLines(`${good}\n{oops\n${good}\n`)).toThrow(SyntaxError);
  });
});

describe('MemorySink', () => {
  it('records delivered events and can be told to fail', async () => {
    const sink = new MemorySink();
    const events = visitEvents(3);
    sink.failNext();
    await expect(sink.publish(events)).rejects.toBeInstanceOf(PublishError);
    expect(sink.events).toEqual([]);
    await sink.publish(events);
    expect(sink.eventIds()).toEqual(events.map((e) => e.detail.eventId));
    expect(sink.ofType(DETAIL_TYPES.MemberVisitRecorded)).toHaveLength(3);
    expect(sink.ofType(DETAIL_TYPES.PaymentFailed)).toHaveLength(0);
    expect(sink.calls).toBe(2);
    sink.clear();
    expect(sink.events).toEqual([]);
  });

  it('stores copies, so later changes by the caller do not rewrite history', async () => {
    const sink = new MemorySink();
    const [event] = visitEvents(1);
    await sink.publish([event!]);
    (event!.detail as { clubId: string }).clubId = 'changed';
    expect(sink.events[0]!.detail.clubId).toBe('club-1');
  });
});
