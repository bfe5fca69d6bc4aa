/**
 * Cross-check of the offline matcher (lambdas/events/event-pattern.ts, `matchesEventPattern`)
 * against a second implementation of EventBridge's pattern matching: moto_server's
 * TestEventPattern (Python, `pip install "moto[server]"`). NOT part of `npm test` (which must not
 * need Python): run it by hand.
 *
 *   npx tsx test/moto/event-pattern-cross-check.ts               # starts moto_server itself
 *   MOTO_ENDPOINT=http://127.0.0.1:5000 npx tsx test/moto/event-pattern-cross-check.ts
 *
 * moto 5.2 answers TestEventPattern without a Result (not implemented), so when that probe fails
 * each case goes through moto's rule routing instead: a bus, PutRule with the pattern (moto's
 * pattern validation), an SQS target, PutEvents of the case's event, and whether the queue got it.
 *
 * For every case of test/unit/events/event-pattern-corpus.ts it prints the expected answer (from
 * EventBridge's documentation), the offline matcher's and moto's; for every invalid pattern,
 * whether moto refuses it too. Differences are listed, not failed on: moto is an emulator, not
 * the reference. Exit 1 only when the offline matcher disagrees with the corpus.
 *
 * Result with moto 5.2.1 (2026-11-23): TestEventPattern answers without a Result; through rule
 * routing 81 of 83 match cases agree. Re-run 2026-11-28 with eight wildcard cases added (case,
 * an empty run, runs that would overlap, escaped star and backslash, anything-but): 89 of 91, the
 * new ones all agreeing. The two differences are arrays of objects
 * (`detail.data.FeeBreakdown[].Kind`): moto does not look into arrays of objects, EventBridge does
 * (and so does the offline matcher). Of the 19 invalid patterns moto refuses 3 with
 * InvalidEventPatternException (leaf not a list, a number leaf, an empty list) and answers HTTP 500
 * to a pattern that is not an object: its validation checks only that leaves are non-empty lists;
 * it accepts unknown matchers, bad numeric ranges, non-boolean exists, `a**b` and `a\b*` wildcards
 * and a non-list `$or`, and answers HTTP 500 at PutEvents for a non-string prefix or a non-numeric
 * bound.
 */
import {
  CreateEventBusCommand,
  PutEventsCommand,
  PutRuleCommand,
  PutTargetsCommand,
  TestEventPatternCommand,
} from '@aws-sdk/client-eventbridge';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { matchesEventPattern } from '../../lambdas/events/event-pattern';
import { baseEvent, invalidPatterns, matchCases } from '../unit/events/event-pattern-corpus';
import { startMoto } from './moto-server';

type Answer = boolean | `error: ${string}`;

const errorAnswer = (error: unknown): Answer =>
  `error: ${(error as Error).name}: ${(error as Error).message}`.replace(/\s+/g, ' ').slice(0, 140) as Answer;

async function main(): Promise<void> {
  const moto = await startMoto();
  let offlineWrong = 0;
  const differences: string[] = [];
  try {
    const { eventBridge: eb, sqs } = moto;

    // TestEventPattern first: moto 5.2 has the operation but does not implement it (no Result).
    const probe = await eb
      .send(
        new TestEventPatternCommand({
          EventPattern: '{"source":["a"]}',
          Event: JSON.stringify({ ...baseEvent, source: 'a' }),
        }),
      )
      .then(
        (out) => `Result=${String(out.Result)}`,
        (error: unknown) => errorAnswer(error),
      );
    process.stdout.write(`TestEventPattern on a matching event: ${probe}\n`);
    const testEventPatternWorks = probe === 'Result=true';
    if (!testEventPatternWorks) {
      process.stdout.write(
        '-> moto does not implement TestEventPattern; using its rule routing instead (PutRule + SQS target + PutEvents)\n\n',
      );
    }

    let n = 0;
    const viaMoto = async (pattern: unknown, event: Record<string, unknown>): Promise<Answer> => {
      if (testEventPatternWorks) {
        try {
          const out = await eb.send(
            new TestEventPatternCommand({
              EventPattern: JSON.stringify(pattern),
              Event: JSON.stringify(event),
            }),
          );
          return out.Result === true;
        } catch (error) {
          return errorAnswer(error);
        }
      }
      const name = `pattern-check-${Date.now()}-${n++}`;
      await eb.send(new CreateEventBusCommand({ Name: name }));
      try {
        await eb.send(
          new PutRuleCommand({ Name: name, EventBusName: name, EventPattern: JSON.stringify(pattern) }),
        );
      } catch (error) {
        return errorAnswer(error);
      }
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
      );
      await eb.send(
        new PutTargetsCommand({
          Rule: name,
          EventBusName: name,
          Targets: [{ Id: 'q', Arn: Attributes?.QueueArn }],
        }),
      );
      const put = await eb.send(
        new PutEventsCommand({
          Entries: [
            {
              EventBusName: name,
              Source: event.source as string,
              DetailType: event['detail-type'] as string,
              Detail: JSON.stringify(event.detail),
              Resources: event.resources as string[],
              Time: new Date(event.time as string),
            },
          ],
        }),
      );
      if (put.FailedEntryCount)
        return errorAnswer(new Error(`PutEvents failed: ${JSON.stringify(put.Entries)}`));
      const received = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      return (received.Messages?.length ?? 0) > 0;
    };

    let agree = 0;
    for (const c of matchCases) {
      const event = c.event ?? baseEvent;
      const offline = matchesEventPattern(c.pattern, event);
      const m = await viaMoto(c.pattern, event);
      if (offline !== c.matches) offlineWrong++;
      const line = `${c.name.padEnd(48)} expected ${String(c.matches).padEnd(5)} offline ${String(offline).padEnd(5)} moto ${m}`;
      process.stdout.write(`${line}\n`);
      if (m === offline) agree++;
      else differences.push(`match   ${line}`);
    }
    let refused = 0;
    for (const c of invalidPatterns) {
      // moto may fail at PutEvents (HTTP 500) on a pattern it accepted: that counts as not refused.
      const m = await viaMoto(c.pattern, baseEvent).catch(
        (error: unknown) => `crash: ${String(error).replace(/\s+/g, ' ').slice(0, 80)}`,
      );
      const line = `${c.name.padEnd(48)} offline: refused   moto ${m}`;
      process.stdout.write(`${line}\n`);
      if (typeof m === 'string' && m.startsWith('error:')) refused++;
      else differences.push(`invalid ${line}`);
    }
    process.stdout.write(
      `\n${agree}/${matchCases.length} match cases agree with moto; moto refuses ${refused}/${invalidPatterns.length} invalid patterns; offline matcher wrong on ${offlineWrong}\n`,
    );
    if (differences.length)
      process.stdout.write(`Differences:\n${differences.map((d) => `  ${d}`).join('\n')}\n`);
  } finally {
    moto.close();
  }
  process.exitCode = offlineWrong ? 1 : 0;
}

await main();
