/**
 * What the append sources (./append-sources.ts, ./payment-source.ts) share: how a record's parts
 * join into a key, whether a member number names someone, the event's subject, a facet's memo.
 */

export const join = (...parts: (string | number | boolean | null | undefined)[]) =>
  parts.map((p) => p ?? '').join('|');

/** A member number that names someone: not empty, not blank (a blank one names nobody). */
export const usable = (memberNumber: string | null | undefined): memberNumber is string =>
  typeof memberNumber === 'string' && memberNumber.trim() !== '';

export const subjectOf = (memberNumber: string | null | undefined) =>
  usable(memberNumber) ? { memberNumber } : {};

/**
 * A facet's memo when it fits the seen entry (256 UTF-8 bytes), else none. A UTF-16 unit is at most
 * 3 bytes of UTF-8, so a text of up to 85 units fits without counting its bytes.
 */
export const memo = (text: string): { memo?: string } =>
  text.length <= 85 || Buffer.byteLength(text, 'utf8') <= 256 ? { memo: text } : {};
