/**
 * A huge page (poison mode's `hugePage`): a valid page envelope of about `bytes` bytes, streamed in
 * 64 KB writes of one shared buffer with back-pressure, so the sandbox never holds more than a
 * normal page plus a socket buffer, however large the page is. A client that stops reading (or
 * closes the socket) stops the writes.
 */
import type { ServerResponse } from 'node:http';
import type { SeededRandom } from '../sandbox-random';
import { CHUNK_BYTES, fillerChunk } from './big-values';

/**
 * Where the bulk goes: a padding record after the real items, one huge string item, an unknown
 * envelope field before `data`, or whitespace after the items (valid JSON all the same). Each
 * carries the response's marker near its start (`PoisonMarker`, or the string's first word).
 */
export const HUGE_PAGE_SHAPES = ['padding-record', 'single-string', 'envelope-field', 'whitespace'] as const;
export type HugePageShape = (typeof HUGE_PAGE_SHAPES)[number];

export interface HugePagePlan {
  readonly shape: HugePageShape;
  /** `length` sends Content-Length up front; `chunked` does not say how much is coming. */
  readonly transfer: 'length' | 'chunked';
  readonly bytes: number;
  readonly marker: string;
}

export function drawHugePage(rng: SeededRandom, bytes: number, marker: string): HugePagePlan {
  return {
    shape: rng.pick(HUGE_PAGE_SHAPES),
    transfer: rng.chance(0.5) ? 'length' : 'chunked',
    bytes,
    marker,
  };
}

/** Writes `chunk`; resolves false when the response is gone (the client closed it). */
function write(res: ServerResponse, chunk: Buffer | string): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  if (res.write(chunk)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

async function writeFiller(res: ServerResponse, kind: 'letters' | 'spaces', bytes: number): Promise<boolean> {
  const chunk = fillerChunk(kind);
  for (let left = bytes; left > 0; left -= CHUNK_BYTES) {
    if (!(await write(res, left >= CHUNK_BYTES ? chunk : chunk.subarray(0, left)))) return false;
  }
  return true;
}

/**
 * The page `{href, next, data}` with `itemsJson` (the JSON array of the real items) and the bulk
 * where the plan puts it, `plan.bytes` in all (or the envelope alone when that is already larger).
 */
export async function streamHugePage(
  res: ServerResponse,
  page: { readonly href: string; readonly next: string; readonly itemsJson: string },
  plan: HugePagePlan,
): Promise<void> {
  const head = `{"href":${JSON.stringify(page.href)},"next":${JSON.stringify(page.next)},`;
  const items = page.itemsJson.slice(1, -1);
  const comma = items.length > 0 ? ',' : '';
  const [before, after, filler]: [string, string, 'letters' | 'spaces'] =
    plan.shape === 'padding-record'
      ? [`${head}"data":[${items}${comma}{"PoisonMarker":"${plan.marker}","Padding":"`, '"}]}', 'letters']
      : plan.shape === 'single-string'
        ? [`${head}"data":["${plan.marker} `, '"]}', 'letters']
        : plan.shape === 'envelope-field'
          ? [`${head}"PoisonMarker":"${plan.marker}","Debug":"`, `","data":[${items}]}`, 'letters']
          : [`${head}"PoisonMarker":"${plan.marker}","data":[${items}`, ']}', 'spaces'];
  const fixed = Buffer.byteLength(before) + Buffer.byteLength(after);
  const bulk = Math.max(0, plan.bytes - fixed);
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    ...(plan.transfer === 'length' ? { 'content-length': fixed + bulk } : {}),
  });
  if (!(await write(res, before))) return;
  if (!(await writeFiller(res, filler, bulk))) return;
  res.end(after);
}
