/**
 * Cross-check of the offline matcher (lambdas/events/event-pattern.ts, `matchesEventPattern`)
 * against a second implementation of EventBridge's pattern matching: moto_server's
 * TestEventPattern (Python, `pip install "moto[server]"`). NOT part of `npm test` (which must not
 * need Python): run it by hand.
 *
 *   npx tsx test/moto/event-pattern-cross-check.ts               # starts moto_server itself
 *   MOTO_ENDPOINT=http://127.0.0.1:5000 npx tsx test/moto/event-pattern-cross-check.ts
 *
 * For every case of test/unit/events/event-pattern-corpus.ts it prints the expected answer (from
 * EventBridge's documentation), the offline matcher's and moto's; for every invalid pattern,
 * whether moto refuses it too. Differences are listed, not failed on: moto is an emulator, not
 * the reference. Exit 1 only when the offline matcher disagrees with the corpus.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { EventBridgeClient, TestEventPatternCommand } from '@aws-sdk/client-eventbridge';
import { matchesEventPattern } from '../../lambdas/events/event-pattern';
import { baseEvent, invalidPatterns, matchCases } from '../unit/events/event-pattern-corpus';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startMoto(): Promise<{ endpoint: string; child?: ChildProcess }> {
  if (process.env.MOTO_ENDPOINT) return { endpoint: process.env.MOTO_ENDPOINT };
  const port = await freePort();
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null)
      throw new Error('moto_server exited: is it installed (pip install "moto[server]")?');
    const ok = await fetch(`${endpoint}/moto-api/`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { endpoint, child };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error(`moto_server did not answer on ${endpoint}`);
}

type Answer = boolean | `error: ${string}`;

async function main(): Promise<void> {
  const moto = await startMoto();
  let offlineWrong = 0;
  const differences: string[] = [];
  try {
    const eb = new EventBridgeClient({
      region: 'us-east-1',
      endpoint: moto.endpoint,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    const viaMoto = async (pattern: unknown, event: unknown): Promise<Answer> => {
      try {
        const out = await eb.send(
          new TestEventPatternCommand({
            EventPattern: JSON.stringify(pattern),
            Event: JSON.stringify(event),
          }),
        );
        return out.Result === true;
      } catch (error) {
        return `error: ${(error as Error).name}: ${(error as Error).message}`.slice(0, 160) as Answer;
      }
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
      else differences.push(`match  ${line}`);
    }
    let refused = 0;
    for (const c of invalidPatterns) {
      const m = await viaMoto(c.pattern, baseEvent);
      const line = `${c.name.padEnd(48)} offline: refused   moto ${m}`;
      process.stdout.write(`${line}\n`);
      if (typeof m === 'string') refused++;
      else differences.push(`invalid ${line}`);
    }
    process.stdout.write(
      `\n${agree}/${matchCases.length} match cases agree with moto; moto refuses ${refused}/${invalidPatterns.length} invalid patterns; offline matcher wrong on ${offlineWrong}\n`,
    );
    if (differences.length)
      process.stdout.write(`Differences:\n${differences.map((d) => `  ${d}`).join('\n')}\n`);
  } finally {
    moto.child?.kill();
  }
  process.exitCode = offlineWrong ? 1 : 0;
}

await main();
