/**
 * The pieces of issue 32's fix one by one: decoding escapes (common/redact.ts), redacting what
 * shows only decoded, the scrubber's walk over parsed JSON (keys, numbers, links), a text cut in the
 * middle of a credential, the sinks, and the excerpt of an error body.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeEscapes,
  forgetKnownSecrets,
  mayHoldEscapes,
  redact,
  redactDecoded,
  redactKnownSecrets,
  rememberSecrets,
} from '../../../lambdas/common/redact';
import { CredentialScrubber } from '../../../lambdas/gym-api/credential-scrubber';
import { parseJsonPreservingInt64 } from '../../../lambdas/gym-api/json';
import { describeBody, upstreamExcerpt } from '../../../lambdas/gym-api/upstream-message';

const KEY = 'k3Y+Zq7/fP2mLx9w';
const PASSWORD = 'pa$$ wörd\u{1F600}"x';
/** Every UTF-16 unit of `text` as a `\u` escape, in the hex case asked for. */
const escapeAll = (text: string, upper = false) =>
  [...text]
    .flatMap((c) => (c.length === 2 ? [c[0]!, c[1]!] : [c]))
    .map((u) => {
      const hex = u.charCodeAt(0).toString(16).padStart(4, '0');
      return `\\u${upper ? hex.toUpperCase() : hex}`;
    })
    .join('');

describe('decodeEscapes', () => {
  it('reads JSON escapes in either hex case, surrogate pairs as their character, and \\/', () => {
    expect(decodeEscapes(escapeAll(KEY))).toBe(KEY);
    expect(decodeEscapes(escapeAll(PASSWORD, true))).toBe(PASSWORD);
    expect(decodeEscapes('\\ud83d\\ude00 a\\/b \\"q\\" \\\\ \\n')).toBe('\u{1F600} a/b "q" \\ \n');
  });

  it('reads percent-encoding as UTF-8 and HTML character references', () => {
    expect(decodeEscapes(encodeURIComponent(PASSWORD))).toBe(PASSWORD);
    expect(decodeEscapes('&#107;&#x33;&#X59;&amp;&lt;&gt;&quot;&apos;')).toBe('k3Y&<>"\'');
  });

  it('leaves what is not a well-formed escape as it is', () => {
    for (const text of ['50% off', 'Tom & Jerry', 'a\\qb', '\\u12', '%G1', '&#x110000;', 'C:\\path'])
      expect(decodeEscapes(text)).toBe(text);
    expect(mayHoldEscapes('50% off & more')).toBe(false);
    expect(mayHoldEscapes('a\\u0041')).toBe(true);
  });
});

describe('redactDecoded', () => {
  const replace = (t: string) => t.replaceAll(KEY, '[redacted]');

  it('gives the text back untouched when no level holds a credential', () => {
    const text = 'José \\u00e9 %3A &amp; plain';
    expect(redactDecoded(text, replace)).toBe(text);
  });

  it('gives the decoded text, redacted, when a credential shows only decoded, up to three levels', () => {
    expect(redactDecoded(`key=${escapeAll(KEY)}`, replace)).toBe('key=[redacted]');
    // A JSON escape inside a percent-encoding: two levels.
    expect(redactDecoded(`key=${encodeURIComponent(escapeAll(KEY))}`, replace)).toBe('key=[redacted]');
    expect(redact(`x ${escapeAll(PASSWORD)} y`, [PASSWORD])).toBe('x [redacted] y');
  });
});

describe('CredentialScrubber.values: decided on the parsed JSON', () => {
  it('cleans values, keys (two keys cleaned alike both kept), nested values and the links', () => {
    const body = `{"href":"https://x/v1/m?k=${escapeAll(KEY)}","next":"https://x/v1/m?offset=2&p=${escapeAll(PASSWORD)}","data":[{"Door":"${escapeAll(KEY, true)}","${escapeAll(KEY)}":1,"${escapeAll(PASSWORD, true)}":2,"Extra":{"a":["x ${escapeAll(PASSWORD)}"]}}]}`;
    const parsed = parseJsonPreservingInt64(body) as Record<string, unknown>;
    const changed = new CredentialScrubber([KEY, PASSWORD]).values(parsed);
    expect(changed).toBe(6);
    expect(parsed).toEqual({
      href: 'https://x/v1/m?k=[redacted]',
      next: 'https://x/v1/m?offset=2&p=[redacted]',
      data: [{ Door: '[redacted]', '[redacted]': 1, '[redacted]#2': 2, Extra: { a: ['x [redacted]'] } }],
    });
  });

  it('checks numbers only when a credential could be a number, in any notation', () => {
    const parsed = parseJsonPreservingInt64('{"data":[{"Pin":12345.678e3,"Amount":12.5,"Id":1234567800}]}');
    expect(new CredentialScrubber(['k3y-12345678']).values(parsed)).toBe(0);
    expect(new CredentialScrubber(['12345678']).values(parsed)).toBe(2);
    expect(parsed).toEqual({ data: [{ Pin: '[redacted]', Amount: 12.5, Id: '[redacted]' }] });
  });

  it('leaves a page without a credential as it was, escapes decoded by JSON.parse and all', () => {
    const body =
      '{"data":[{"Name":"Jos\\u00E9 O\\u0027Brien","Url":"https:\\/\\/x\\/y?a=%3A","Note":"50% & more"}]}';
    const parsed = parseJsonPreservingInt64(body);
    const copy = structuredClone(parsed);
    expect(new CredentialScrubber([KEY, PASSWORD]).values(parsed)).toBe(0);
    expect(parsed).toEqual(copy);
  });
});

describe('CredentialScrubber.cutText: a text cut where a read stopped', () => {
  const scrubber = new CredentialScrubber([KEY]);

  it('removes the start of a credential the cut left at its end, escaped or not', () => {
    expect(scrubber.cutText(`"data":[{"Door":"${KEY.slice(0, 9)}`)).toBe('"data":[{"Door":"[redacted]');
    expect(scrubber.cutText(`"data":[{"Door":"${escapeAll(KEY.slice(0, 6))}`)).toBe(
      '"data":[{"Door":"[redacted]',
    );
  });

  it('keeps a text that ends in no credential as it is', () => {
    expect(scrubber.cutText('"data":[{"Door":"Main","Scan')).toBe('"data":[{"Door":"Main","Scan');
  });
});

describe('the sinks and the excerpts read escaped text decoded', () => {
  it('redactKnownSecrets removes a remembered credential written with escapes', () => {
    forgetKnownSecrets();
    rememberSecrets(KEY);
    try {
      expect(redactKnownSecrets(`failed: ${escapeAll(KEY)}`)).toBe('failed: [redacted]');
      expect(redactKnownSecrets('nothing to see \\u0041')).toBe('nothing to see \\u0041');
    } finally {
      forgetKnownSecrets();
    }
  });

  it('an error excerpt is the body decoded, redacted at every level', () => {
    const nested = `{"error":{"detail":"login ${escapeAll(PASSWORD)} refused"}}`;
    expect(upstreamExcerpt(nested, [PASSWORD])).toBe('{"error":{"detail":"login [redacted] refused"}}');
    expect(upstreamExcerpt(`<p>key &#x6b;${escapeAll(KEY.slice(1))}</p>`, [KEY])).toBe(
      '<p>key [redacted]</p>',
    );
  });

  it('a Content-Type is named only when it is a common media type', () => {
    expect(describeBody('x', 'text/html; charset=utf-8')).toBe('1 chars of text/html');
    expect(describeBody('x', `application/${KEY}`)).toBe('1 chars of another content type');
  });
});
