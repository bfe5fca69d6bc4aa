/**
 * JSON serialisation that writes bigint values as bare integer literals (9007199254740993, not
 * "9007199254740993" and not a rounded number), the way a .NET or Java service writes int64 ids.
 * Node 20 has no JSON.rawJSON, so bigints go through a private-use marker that is replaced after
 * JSON.stringify. `RawJson` values (poison mode only) are spliced in as written: number literals
 * JSON.stringify cannot produce (`1e400`, `-0`, `9007199254740993.0`) and prebuilt texts (a
 * 6,000-deep nesting, a 3 MB string) that are not rebuilt on every page. A page without them
 * costs exactly what it cost before they existed: they are found through their own toJSON, not
 * by a check on every value.
 */

const MARK = '\uE000';
const MARKED = new RegExp(`"${MARK}(-?\\d+)${MARK}"`, 'g');
const RAW = '\uE001';
const RAW_MARKED = new RegExp(`"${RAW}(\\d+)${RAW}"`, 'g');

/** The raw texts met by the stringifyWithInt64 call in progress (JSON.stringify is synchronous). */
let collecting: string[] | undefined;

/** A JSON text written into stringifyWithInt64's output as it is. */
export class RawJson {
  constructor(readonly text: string) {}

  /** Outside stringifyWithInt64 (a plain JSON.stringify), the text as a JSON string. */
  toJSON(): string {
    if (!collecting) return this.text;
    collecting.push(this.text);
    return `${RAW}${collecting.length - 1}${RAW}`;
  }
}

export function stringifyWithInt64(value: unknown): string {
  const outer = collecting;
  const raws: string[] = [];
  collecting = raws;
  let text: string;
  try {
    text = JSON.stringify(value, (_key, v: unknown) =>
      typeof v === 'bigint' ? `${MARK}${v.toString()}${MARK}` : v,
    );
  } finally {
    collecting = outer;
  }
  const ints = text.includes(MARK) ? text.replace(MARKED, '$1') : text;
  return raws.length === 0 ? ints : ints.replace(RAW_MARKED, (_m, i: string) => raws[Number(i)] as string);
}
