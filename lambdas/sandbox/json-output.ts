/**
 * JSON serialisation that writes bigint values as bare integer literals (9007199254740993, not
 * "9007199254740993" and not a rounded number), the way a .NET or Java service writes int64 ids.
 * Node 20 has no JSON.rawJSON, so bigints go through a private-use marker that is replaced after
 * JSON.stringify.
 */

const MARK = '\uE000';
const MARKED = new RegExp(`"${MARK}(-?\\d+)${MARK}"`, 'g');

export function stringifyWithInt64(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'bigint' ? `${MARK}${v.toString()}${MARK}` : v,
  );
  return text.includes(MARK) ? text.replace(MARKED, '$1') : text;
}
