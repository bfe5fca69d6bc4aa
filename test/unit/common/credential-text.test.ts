/**
 * credentialProblem: the one rule for what a club credential may hold, and a reason that names the
 * field and never the value (checked for arbitrary values with fast-check).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CredentialField,
  credentialProblem,
  MAX_API_KEY_LENGTH,
} from '../../../lambdas/common/credential-text';

const FIELDS: readonly CredentialField[] = ['username', 'password', 'apiKey'];

/** Any UTF-16 string: control characters, lone surrogates, astral characters, whitespace. */
const anyText = fc.string({ unit: 'binary', maxLength: 40 });
const anyTextWithControls = fc.oneof(
  anyText,
  fc.string({ unit: fc.constantFrom('a', ' ', ':', '\n', '\r', '\t', '\u0000', '\u007f', 'é', '\u00a0') }),
);

/**
 * Each character replaced by one representative of its class (the classes the rule tells apart):
 * a reason that depends only on the classes cannot carry the value.
 */
function mask(value: string): string {
  return [...value]
    .map((ch) => {
      const code = ch.charCodeAt(0);
      if (code <= 0x1f || code === 0x7f || ch === ' ' || ch === ':') return ch;
      if (code > 0x7e) return (/^\s$/.test(ch) ? '\u00a0' : 'é').repeat(ch.length);
      return 'x';
    })
    .join('');
}

describe('credentialProblem', () => {
  it.each([
    ['apiKey', 'k-7f3a9c1e5b2d4f60'],
    ['apiKey', '!~'],
    ['username', 'integrator@example.com'],
    ['username', 'Jürgen Müller'],
    ['password', 'p a s s: wörd '],
    ['password', ' leading and trailing spaces are a password '],
  ] as const)('accepts %s %j', (field, value) => {
    expect(credentialProblem(field, value)).toBeUndefined();
  });

  it.each([
    ['apiKey', '', /^apiKey is empty: an API key is 1 to 2048 visible ASCII characters/],
    ['apiKey', 'key\n', /^apiKey ends with a newline \(.*echo.*\): an API key is/],
    ['apiKey', 'key\r\n', /^apiKey ends with a newline/],
    ['apiKey', 'ke y', /^apiKey contains a space inside it/],
    ['apiKey', ' key', /^apiKey contains a space at its start/],
    ['apiKey', 'ke\u0000y', /^apiKey contains a control character \(NUL\) inside it/],
    ['apiKey', 'kéy', /^apiKey contains a character outside ASCII inside it/],
    ['apiKey', 'key\u007f', /^apiKey contains a control character \(delete\) at its end/],
    ['username', '', /^username is empty$/],
    ['username', 'user:name', /^username contains ':'.*RFC 7617/],
    ['username', ' user', /^username starts with whitespace/],
    ['username', 'user\u00a0', /^username ends with whitespace/],
    ['username', 'user\n', /^username ends with a newline/],
    ['username', 'us\ter', /^username contains a control character \(tab\) inside it/],
    ['password', '', /^password is empty$/],
    ['password', 'hunter2\n', /^password ends with a newline \(a trailing newline usually comes from `echo`/],
    ['password', 'hun\u001bter2', /^password contains a control character \(escape\) inside it/],
    ['password', '\u0003hunter2', /^password contains a control character \(U\+0003\) at its start/],
  ] as const)('refuses %s %j', (field, value, reason) => {
    expect(credentialProblem(field, value)).toMatch(reason);
  });

  it('takes an API key of up to 2048 characters, not one more', () => {
    expect(credentialProblem('apiKey', 'x'.repeat(MAX_API_KEY_LENGTH))).toBeUndefined();
    expect(credentialProblem('apiKey', 'x'.repeat(MAX_API_KEY_LENGTH + 1))).toMatch(
      /^apiKey is 2049 characters long: an API key is 1 to 2048 visible ASCII characters/,
    );
  });

  it('never quotes the value, for arbitrary values of six characters or more', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIELDS), anyTextWithControls, anyText, (field, a, b) => {
        const value = `${a}${b}`;
        fc.pre(value.length >= 6);
        const reason = credentialProblem(field, value);
        if (reason !== undefined) expect(reason).not.toContain(value);
      }),
      { numRuns: 2000 },
    );
  });

  it('says the same for every value of the same shape (so it cannot carry the value)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIELDS), anyTextWithControls, (field, value) => {
        expect(credentialProblem(field, value)).toBe(credentialProblem(field, mask(value)));
      }),
      { numRuns: 2000 },
    );
  });

  it('a secret around a marker never shows the marker, and every reason names its field', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FIELDS),
        anyTextWithControls,
        fc.stringMatching(/^[A-Za-z0-9]{8,16}$/),
        anyTextWithControls,
        (field, before, marker, after) => {
          const reason = credentialProblem(field, `${before}${marker}${after}`);
          if (reason === undefined) return;
          expect(reason).not.toContain(marker);
          expect(reason.startsWith(`${field} `)).toBe(true);
          expect(reason).not.toMatch(/[\u0000-\u001f\u007f]/);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses exactly what the rule says (visible ASCII for keys; control characters, colon and edge whitespace for usernames)', () => {
    fc.assert(
      fc.property(anyTextWithControls, (value) => {
        const visibleAscii = /^[\x21-\x7e]{1,2048}$/.test(value);
        expect(credentialProblem('apiKey', value) === undefined).toBe(visibleAscii);
        const control = /[\u0000-\u001f\u007f]/.test(value);
        expect(credentialProblem('password', value) === undefined).toBe(value !== '' && !control);
        const username = value !== '' && !control && !value.includes(':') && value.trim() === value;
        expect(credentialProblem('username', value) === undefined).toBe(username);
      }),
      { numRuns: 2000 },
    );
  });
});
