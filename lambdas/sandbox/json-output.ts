/**
 * JSON serialisation that writes bigint values as bare integer literals (9007199254740993, not
 * "9007199254740993" and not a rounded number), the way a .NET or Java service writes int64 ids.
 * Node 20 has no JSON.rawJSON, so bigints go through a private-use marker that is replaced after
 * JSON.stringify. `RawJson` values (poison mode only) are spliced in as written: number literals
 * JSON.stringify cannot produce (`1e400`, `-0`, `9007199254740993.0`) and prebuilt texts (a
 * 6,000-deep nesting) that are not rebuilt on every page.
 */

const MARK = '\uE000';
const MARKED = new RegExp(`"${MARK}(-?\\d+)${MARK}"`, 'g');
const RAW = '\uE001';
const RAW_MARKED = new RegExp(`"${RAW}(\\d+)${RAW}"`, 'g');

/** A JSON text written into the output as it is. */
export class RawJson {
  constructor(readonly text: string) {}
}

export function stringifyWithInt64(value: unknown): string {
  let raws: string[] | undefined;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return `${MARK}${v.toString()}${MARK}`;
    if (v instanceof RawJson) {
      raws ??= [];
      raws.push(v.text);
      return `${RAW}${raws.length - 1}${RAW}`;
    }
    return v;
  });
  const ints = text.includes(MARK) ? text.replace(MARKED, '$1') : text;
  if (!raws) return ints;
  const texts = raws;
  return ints.replace(RAW_MARKED, (_m, i: string) => texts[Number(i)] as string);
}
