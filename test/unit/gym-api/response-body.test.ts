/**
 * Reading a body under the request's signal (lambdas/gym-api/response-body.ts): each read races
 * the signal, so a body that stops delivering is given up when the request times out, whatever the
 * transport does with the abort. Node 20's fetch, decoding a gzip body, left about 1 read in 100 of
 * a request aborted mid-body waiting for ever (measured against a local server dripping a gzip
 * body under 10-60 ms timeouts: 2 of 200 hung; found by the chaos suite as polls that never ended).
 */
import { describe, expect, it } from 'vitest';
import { BodyGate } from '../../../lambdas/gym-api/body-budget';
import { readBody } from '../../../lambdas/gym-api/response-body';

/** A 200 whose body delivers `first` and then never another byte nor an end. */
function stalledResponse(first: string): Response {
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(new TextEncoder().encode(first));
        return;
      }
      return new Promise<void>(() => undefined);
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
}

const limits = (readSignal?: AbortSignal) => ({
  operation: 'visits',
  cap: 1024 * 1024,
  failPastCap: true,
  gate: new BodyGate(2),
  now: Date.now,
  ...(readSignal ? { readSignal } : {}),
});

describe('reading a body under the request signal', () => {
  it('gives up a body that stalls when the signal aborts, with its reason', async () => {
    const started = Date.now();
    const err = await readBody(stalledResponse('{"data":['), limits(AbortSignal.timeout(50))).catch(
      (e: unknown) => e,
    );
    expect((err as Error).name).toBe('TimeoutError');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('an aborted signal ends the read before it starts', async () => {
    const controller = new AbortController();
    controller.abort(new Error('caller stopped'));
    await expect(readBody(stalledResponse('{'), limits(controller.signal))).rejects.toThrow('caller stopped');
  });

  it('a body that ends reads whole, the signal untouched', async () => {
    const controller = new AbortController();
    const read = await readBody(new Response('{"data":[]}'), limits(controller.signal));
    expect(read.text).toBe('{"data":[]}');
    expect(controller.signal.aborted).toBe(false);
  });
});
