/**
 * Redaction: every form a credential can come back in, the process-wide last pass, the log lines,
 * and the bounded walks that serialise any value without throwing.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { boundedCopy, measureValue, safeStringify } from '../../../lambdas/common/bounded-value';
import { logger } from '../../../lambdas/common/logger';
import {
  basicLoginSecrets,
  forgetKnownSecrets,
  redact,
  redactKnownSecrets,
  rememberSecrets,
  scrubTokenLike,
  secretVariants,
} from '../../../lambdas/common/redact';

afterEach(() => forgetKnownSecrets());

describe('redact', () => {
  const password = 'Pa55 w/rd"&é';
  const pair = `integrator:${password}`;
  const basic = Buffer.from(pair).toString('base64');

  it.each([
    ['as is', password],
    ['JSON-escaped', JSON.stringify(password).slice(1, -1)],
    ['URL-encoded', encodeURIComponent(password)],
    [
      'URL-encoded, lower-case hex',
      encodeURIComponent(password).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    ],
    ['form-encoded', encodeURIComponent(password).replace(/%20/g, '+')],
    ['base64', Buffer.from(password).toString('base64')],
    ['base64url', Buffer.from(password).toString('base64url')],
    ['the Basic value without its prefix', basic],
    ['the Basic value without its padding', basic.replace(/=+$/, '')],
    ['username:password', pair],
    ['HTML-escaped', password.replace('&', '&amp;').replace('"', '&quot;')],
  ])('removes the password %s', (_form, echoed) => {
    const text = `{"Message":"login ${echoed} refused"}`;
    const out = redact(text, basicLoginSecrets('integrator', password));
    expect(out).not.toContain(echoed);
    expect(out).toContain('[redacted]');
  });

  it('removes each segment of a JWT, the signature above all', () => {
    const token =
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjbHViLTEiLCJleHAiOjE3MH0.c2lnbmF0dXJlLXBhcnQtb2YtdGhlLXRva2Vu';
    const signature = token.split('.')[2]!;
    expect(redact(`bad signature ${signature}`, [token])).toBe('bad signature [redacted]');
  });

  it('for any secret and any text around any of its forms, no form is left', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 4, maxLength: 40 }),
        fc.string({ maxLength: 40 }),
        fc.string({ maxLength: 40 }),
        fc.nat(),
        (secret, before, after, pick) => {
          const forms = secretVariants(secret);
          const form = forms[pick % forms.length]!;
          const out = redact(`${before}${form}${after}`, [secret]);
          // (a form that the marker itself would complete does not count: it is not the secret)
          return !out.replaceAll('[redacted]', '\u0000').includes(form);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('scrubs runs shaped like keys or tokens, and leaves ordinary text', () => {
    expect(scrubTokenLike('key 3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c was refused')).toBe(
      'key [redacted] was refused',
    );
    expect(scrubTokenLike('Invalid value for fromdate: 2026-11-26T10:00:00')).toBe(
      'Invalid value for fromdate: 2026-11-26T10:00:00',
    );
  });
});

describe('the process-wide last pass', () => {
  it('removes every credential the process used, in its forms, and forgets the oldest past the limit', () => {
    rememberSecrets('club-key-aaaa', 'password-bbbb');
    expect(redactKnownSecrets('x club-key-aaaa y cGFzc3dvcmQtYmJiYg== z')).toBe(
      'x [redacted] y [redacted] z',
    );
    expect(redactKnownSecrets('nothing here')).toBe('nothing here');
  });

  it('every string of every log line passes it', () => {
    // Prepare
    rememberSecrets('live-api-key-9876');
    const lines: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const level = logger.getLevelName();
    logger.setLogLevel('DEBUG');
    try {
      // Act
      logger.info('upstream said live-api-key-9876', {
        error: 'key live-api-key-9876 refused',
        nested: { a: ['live-api-key-9876'] },
      });
    } finally {
      logger.setLogLevel(level as Parameters<typeof logger.setLogLevel>[0]);
      write.mockRestore();
    }
    // Assess
    const text = lines.join('');
    expect(text).toContain('upstream said [redacted]');
    expect(text).not.toContain('live-api-key-9876');
  });
});

describe('bounded walks', () => {
  const deep = (levels: number) => {
    let v: unknown = 'bottom';
    for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { n: v };
    return v;
  };

  it('measure and copy a value 100,000 levels deep without recursion', () => {
    const value = deep(100_000);
    expect(measureValue(value)).toMatchObject({ exceeded: 'depth' });
    const copy = boundedCopy(value, { maxDepth: 5 });
    expect(JSON.stringify(copy)).toMatch(/omitted: nested deeper than 5 levels/);
    expect(safeStringify(value).length).toBeLessThan(1000);
  });

  it('say where a limit was passed: keys cut to 40 characters, indexes in brackets', () => {
    const long = 'k'.repeat(50);
    const value = { Number: '1', Extra: { a: [{ [long]: { c: 'x'.repeat(200) } }] } };
    expect(measureValue(value, { maxDepth: 4, maxBytes: 1e6 })).toEqual({
      depth: 5,
      bytes: expect.any(Number),
      path: `Extra.a[0].${'k'.repeat(40)}`,
      exceeded: 'depth',
    });
    expect(measureValue(value, { maxDepth: 32, maxBytes: 100 })).toMatchObject({
      path: `Extra.a[0].${'k'.repeat(40)}.c`,
      exceeded: 'bytes',
    });
    expect(measureValue([[['deep']]], { maxDepth: 2, maxBytes: 1e6 })).toMatchObject({ path: '[0][0]' });
    expect(measureValue('x'.repeat(300), { maxDepth: 2, maxBytes: 100 })).toMatchObject({ path: '(record)' });
  });

  it('never throw, whatever the value', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const hostile = {
      get boom() {
        throw new Error('getter');
      },
    };
    for (const v of [cyclic, hostile, 10n, () => 1, Symbol('s'), undefined, Number.NaN, 'x'.repeat(1e6)]) {
      expect(() => safeStringify(v)).not.toThrow();
    }
    fc.assert(fc.property(fc.anything(), (v) => typeof safeStringify(v) === 'string'));
  });

  it('cut in member order: the first fields survive a small budget, the later ones are marked', () => {
    const record = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`Field${i}`, `value-${i}`]));
    const text = safeStringify(record, { maxChars: 120 });
    expect(text).toMatch(/^\{"Field0":"value-0","Field1":"value-1",/);
    expect(text).toMatch(/"Field29":"\[omitted: size limit\]"\}$/);
  });

  it('keep a member named __proto__ as a member (JSON.parse makes it an own property)', () => {
    const text = '{"__proto__":"","":0,"n":{"__proto__":{"x":1}}}';
    expect(safeStringify(JSON.parse(text))).toBe(text);
  });

  it('keep a value within the limits exactly as JSON.stringify writes it', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (v) => {
        fc.pre(JSON.stringify(v).length < 10_000);
        return (
          safeStringify(v, { maxStringChars: 1e6, maxMembers: 1e6, maxChars: 1e6 }) === JSON.stringify(v)
        );
      }),
    );
  });
});
