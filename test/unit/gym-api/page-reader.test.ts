import { describe, expect, it } from 'vitest';
import { InvalidResponseError } from '../../../lambdas/gym-api/errors';
import { OPERATIONS } from '../../../lambdas/gym-api/operations';
import { parseEnvelope, readPage } from '../../../lambdas/gym-api/page-reader';
import { type NextLinkContext, nextOffsetFromLink } from '../../../lambdas/gym-api/paging-checks';

const context: NextLinkContext = {
  operation: 'visits',
  requestUrl: 'https://gym.example.test/v1/members/attendance/visits?offset=500&limit=500',
  expectedEndpoint: 'https://gym.example.test/v1/members/attendance/visits',
  offset: 500,
  rawCount: 500,
  willFollow: true,
};

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('parseEnvelope', () => {
  it('parses href, next and data, keeping int64 precision', () => {
    const envelope = parseEnvelope(
      'paymentHistory',
      '{"href":"h","next":"n","data":[{"Id":9007199254740993}]}',
      'application/json',
      200,
    );
    expect(envelope).toEqual({ href: 'h', next: 'n', data: [{ Id: '9007199254740993' }] });
  });

  it('treats an empty or null next as absent', () => {
    expect(parseEnvelope('visits', '{"next":"","data":[]}', null, 200).next).toBeUndefined();
    expect(parseEnvelope('visits', '{"next":null,"data":[]}', null, 200).next).toBeUndefined();
  });

  it('refuses HTML and truncated JSON without quoting the body', () => {
    const html = thrown(() =>
      parseEnvelope(
        'visits',
        '<html><body>Maintenance, call Bob</body></html>',
        'text/html; charset=utf-8',
        200,
      ),
    );
    expect(html).toBeInstanceOf(InvalidResponseError);
    expect((html as Error).message).toContain('text/html');
    expect((html as Error).message).not.toContain('Bob');
    const truncated = thrown(() =>
      parseEnvelope('visits', '{"data":[{"MemberNumber":"M1"},{"Mem', null, 200),
    );
    expect(truncated).toBeInstanceOf(InvalidResponseError);
    expect((truncated as Error).message).toMatch(/not JSON or is truncated/);
  });

  it('refuses a wrong envelope, naming the path', () => {
    expect(thrown(() => parseEnvelope('visits', '[{"MemberNumber":"M1"}]', null, 200))).toMatchObject({
      name: 'InvalidResponseError',
      path: 'data',
    });
    expect(thrown(() => parseEnvelope('visits', '{"data":{"items":[]}}', null, 200))).toMatchObject({
      path: 'data',
    });
    expect(thrown(() => parseEnvelope('visits', '{"href":5,"data":[]}', null, 200))).toMatchObject({
      path: 'href',
    });
  });
});

describe('readPage', () => {
  it('separates valid items from invalid ones, naming the failing field path', () => {
    const page = readPage<'members'>(
      OPERATIONS.members,
      {
        next: 'n',
        data: [
          { Number: 'M1', Status: 'Active' },
          { Number: 'M2', Membership: { Id: 1, Name: 'x', StartDate: '2025-01-01', Type: 'DD' } },
          'not an object',
          { Number: 'M4', Contact: {}, DateOfBirth: 'x' },
        ],
      },
      1000,
      500,
    );
    expect(page.items.map((m) => m.Number)).toEqual(['M1']);
    expect(page.rawCount).toBe(4);
    expect(page.offset).toBe(1000);
    expect(page.limit).toBe(500);
    expect(page.next).toBe('n');
    expect(page.invalid.map((i) => i.index)).toEqual([1, 2, 3]);
    expect(page.invalid[0]?.issues).toMatch(/^data\[1\]\.Membership\.StartDate: date-time must match/);
    expect(page.invalid[1]?.issues).toMatch(/^data\[2\]: /);
    expect(page.invalid[2]?.issues).toContain('data[3].DateOfBirth');
    expect(page.invalid[2]?.issues).toContain('data[3].Contact.Email');
    expect(page.invalid[2]?.raw).toEqual({ Number: 'M4', Contact: {}, DateOfBirth: 'x' });
  });

  it('uses array indexes inside items in brackets', () => {
    const page = readPage<'posTransactions'>(
      OPERATIONS.posTransactions,
      { data: [{ Items: [{}, { ItemId: 'abc' }] }] },
      0,
      500,
    );
    expect(page.invalid[0]?.issues).toMatch(/^data\[0\]\.Items\[1\]\.ItemId: /);
  });
});

describe('nextOffsetFromLink', () => {
  it('reads the offset of an absolute or relative link on the same endpoint', () => {
    expect(
      nextOffsetFromLink(
        'https://gym.example.test/v1/members/attendance/visits?offset=1000&limit=500',
        context,
      ),
    ).toBe(1000);
    expect(nextOffsetFromLink('/v1/members/attendance/visits?limit=500&offset=1000', context)).toBe(1000);
    expect(nextOffsetFromLink('?offset=1000&limit=500', context)).toBe(1000);
  });

  it('allows an overlap (a smaller step) but never a loop or a skip', () => {
    expect(nextOffsetFromLink('?offset=999', context)).toBe(999);
    expect(thrown(() => nextOffsetFromLink('?offset=500', context))).toMatchObject({
      name: 'PagingStalledError',
      message: expect.stringMatching(/would loop/),
    });
    expect((thrown(() => nextOffsetFromLink('?offset=1001', context)) as Error).message).toMatch(
      /skip records/,
    );
  });

  it('returns undefined without a link or without an offset in it', () => {
    expect(nextOffsetFromLink(undefined, context)).toBeUndefined();
    expect(nextOffsetFromLink('?limit=500', context)).toBeUndefined();
  });

  it('refuses another host, another scheme, another port and another path', () => {
    for (const link of [
      'https://evil.example.test/v1/members/attendance/visits?offset=1000',
      'http://gym.example.test/v1/members/attendance/visits?offset=1000',
      'https://gym.example.test:8443/v1/members/attendance/visits?offset=1000',
      '//evil.example.test/v1/members/attendance/visits?offset=1000',
    ]) {
      const err = thrown(() => nextOffsetFromLink(link, context));
      expect(err, link).toBeInstanceOf(InvalidResponseError);
      expect((err as Error).message).toMatch(/another origin/);
    }
    expect((thrown(() => nextOffsetFromLink('/v1/members?offset=1000', context)) as Error).message).toMatch(
      /another path/,
    );
  });

  it('on a short page, checks only origin and path (a next past the end is normal there)', () => {
    const last = { ...context, rawCount: 17, willFollow: false };
    expect(nextOffsetFromLink('?offset=1000&limit=500', last)).toBeUndefined();
    expect(nextOffsetFromLink('?offset=junk', last)).toBeUndefined();
    expect(
      thrown(() => nextOffsetFromLink('https://evil.example.test/v1/members/attendance/visits', last)),
    ).toMatchObject({ path: 'next' });
  });

  it('refuses a malformed offset or limit', () => {
    for (const link of [
      '?offset=-5',
      '?offset=abc',
      '?offset=1e3',
      '?offset=1000&limit=501',
      '?offset=1000&limit=x',
    ]) {
      expect(
        thrown(() => nextOffsetFromLink(link, context)),
        link,
      ).toBeInstanceOf(InvalidResponseError);
    }
  });
});
