/**
 * The clubs file: validation messages name the club and the field, and never carry a credential.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClubConfigError, isLoopbackHost, parseClubsFile } from '../../../lambdas/clubs/club-config';
import { readClubsFile } from '../../../lambdas/clubs/clubs-file';

const PASSWORD = 'pw-Zq8!hunter2';
const API_KEY = 'key-7f3e9c1d2b';
const USERNAME = 'api-user';

const club = (overrides: Record<string, unknown> = {}) => ({
  clubId: 'club-1',
  baseUrl: 'https://api.example.com/v1',
  timeZone: 'Australia/Sydney',
  plan: 'basic',
  credentials: { username: USERNAME, password: PASSWORD, apiKey: API_KEY },
  ...overrides,
});

/** The ClubConfigError message for `input`; fails the test if it parses. */
function errorOf(input: unknown): string {
  try {
    parseClubsFile(input);
  } catch (err) {
    expect(err).toBeInstanceOf(ClubConfigError);
    const message = (err as Error).message;
    expect(message).not.toContain(PASSWORD);
    expect(message).not.toContain(API_KEY);
    return message;
  }
  throw new Error('expected a ClubConfigError');
}

describe('parseClubsFile: a good file', () => {
  it('returns the clubs with defaults applied', () => {
    const [parsed, ...rest] = parseClubsFile({ clubs: [club()] });
    expect(rest).toEqual([]);
    expect(parsed).toEqual({
      ...club(),
      enabled: true,
      piiPolicy: 'minimal',
      unstatedZone: 'local',
      unstatedZoneConfirmed: false,
    });
    expect(parsed).not.toHaveProperty('sources');
  });

  it('keeps explicit settings', () => {
    const [parsed] = parseClubsFile({
      clubs: [
        club({
          plan: 'advanced',
          enabled: false,
          piiPolicy: 'full',
          unstatedZone: 'utc',
          unstatedZoneConfirmed: true,
          sources: ['members', 'visits'],
          paymentRules: { succeeded: ['^OK$'] },
        }),
      ],
    });
    expect(parsed).toMatchObject({
      plan: 'advanced',
      enabled: false,
      piiPolicy: 'full',
      unstatedZone: 'utc',
      unstatedZoneConfirmed: true,
      sources: ['members', 'visits'],
      paymentRules: { succeeded: ['^OK$'] },
    });
  });

  it.each([
    'https://api.example.com/v1',
    'https://api.example.com:8443/v1',
    'http://127.0.0.1:4010/v1',
    'http://127.0.0.2:4010/v1',
    'http://localhost:4010/v1',
    'http://[::1]:4010/v1',
  ])('accepts baseUrl %s', (baseUrl) => {
    expect(parseClubsFile({ clubs: [club({ baseUrl })] })[0]!.baseUrl).toBe(baseUrl);
  });
});

describe('parseClubsFile: each bad field names the club and the field', () => {
  it.each([
    ['no clubs key', {}, /clubs: .*expected array/],
    ['clubs not an array', { clubs: 'club-1' }, /clubs: /],
    ['an empty list', { clubs: [] }, /clubs: lists no club/],
    ['not an object at all', null, /invalid/],
    ['an unknown top-level key', { clubs: [club()], club: {} }, /Unrecognized key.*"club"/],
  ])('%s', (_case, input, pattern) => {
    expect(errorOf(input)).toMatch(pattern);
  });

  it.each([
    ['clubId with a space', { clubId: 'club one' }, "club 'club one' clubId: letters, digits"],
    ['clubId starting with a dash', { clubId: '-club' }, "club '-club' clubId:"],
    ['clubId too long', { clubId: 'c'.repeat(65) }, 'clubId: letters, digits'],
    ['clubId not a string', { clubId: 42 }, 'club #1 clubId:'],
    ['missing clubId', { clubId: undefined }, 'club #1 clubId:'],
    [
      'unknown zone',
      { timeZone: 'Australia/Sidney' },
      "club 'club-1' timeZone: unknown IANA time zone 'Australia/Sidney'",
    ],
    ['bad plan', { plan: 'premium' }, "club 'club-1' plan:"],
    ['bad piiPolicy', { piiPolicy: 'none' }, "club 'club-1' piiPolicy:"],
    ['bad unstatedZone', { unstatedZone: 'Australia/Sydney' }, "club 'club-1' unstatedZone:"],
    ['bad unstatedZoneConfirmed', { unstatedZoneConfirmed: 'yes' }, "club 'club-1' unstatedZoneConfirmed:"],
    ['unknown source', { sources: ['members', 'classes'] }, "club 'club-1' sources.1:"],
    ['no sources', { sources: [] }, "club 'club-1' sources:"],
    ['enabled not a boolean', { enabled: 'yes' }, "club 'club-1' enabled:"],
    ['an unknown club key', { pasword: 'x' }, `club 'club-1': Unrecognized key: "pasword"`],
  ])('%s', (_case, overrides, expected) => {
    expect(errorOf({ clubs: [club(overrides)] })).toContain(expected);
  });

  it.each([
    ['http:// to a public host', 'http://api.example.com/v1', 'plain http:// is refused for api.example.com'],
    ['http:// to a host that only starts like loopback', 'http://127.0.0.1.example.com/', 'plain http://'],
    ['ftp://', 'ftp://api.example.com/', 'must be https://'],
    ['not a URL', 'api.example.com/v1', 'not a URL'],
    ['a query string', 'https://api.example.com/v1?key=1', 'must not carry a query or fragment'],
    [
      'credentials in the URL',
      `https://${USERNAME}:${PASSWORD}@api.example.com/v1`,
      'must not embed credentials',
    ],
    [
      'credentials in the URL, plain http',
      `http://${USERNAME}:${PASSWORD}@127.0.0.1/v1`,
      'must not embed credentials',
    ],
    // Unparseable, with a password inside: the message must not quote it.
    ['credentials in an unparseable URL', `https://${USERNAME}:${PASSWORD}@api example.com/v1`, 'not a URL'],
  ])('baseUrl: %s', (_case, baseUrl, expected) => {
    const message = errorOf({ clubs: [club({ baseUrl })] });
    expect(message).toContain("club 'club-1' baseUrl:");
    expect(message).toContain(expected);
  });

  it.each([
    ['an empty password', { password: '' }, 'credentials: password is empty'],
    ['a numeric apiKey', { apiKey: 12345678 }, 'credentials.apiKey: Invalid input: expected string\n'],
    ['a missing username', { username: undefined }, 'credentials.username: Invalid input: expected string\n'],
    ['an unknown credentials key', { token: PASSWORD }, 'credentials: Unrecognized key: "token"'],
    [
      'an API key with a trailing newline',
      { apiKey: `${API_KEY}\n` },
      'credentials: apiKey ends with a newline (a trailing newline usually comes from `echo`',
    ],
    [
      'an API key with a control character',
      { apiKey: `${API_KEY.slice(0, 4)}\u0007${API_KEY.slice(4)}` },
      'credentials: apiKey contains a control character (U+0007) inside it: an API key is 1 to 2048 visible ASCII characters',
    ],
    [
      'an API key with a space',
      { apiKey: `${API_KEY} ${API_KEY}` },
      'credentials: apiKey contains a space inside it',
    ],
    [
      'an API key with a character outside ASCII',
      { apiKey: `${API_KEY}é` },
      'credentials: apiKey contains a character outside ASCII at its end',
    ],
    ['a username with a colon', { username: `${USERNAME}:x` }, "credentials: username contains ':'"],
    [
      'a username with a trailing space',
      { username: `${USERNAME} ` },
      'credentials: username ends with whitespace',
    ],
    [
      'a password with a trailing newline',
      { password: `${PASSWORD}\r\n` },
      'credentials: password ends with a newline',
    ],
    [
      'a password with a control character',
      { password: `\u0000${PASSWORD}` },
      'credentials: password contains a control character (NUL) at its start',
    ],
  ])('credentials: %s (values never quoted)', (_case, change, expected) => {
    const credentials = { username: USERNAME, password: PASSWORD, apiKey: API_KEY, ...change };
    const message = `${errorOf({ clubs: [club({ credentials })] })}\n`;
    expect(message).toContain(`club 'club-1' ${expected}`);
    expect(message).not.toContain('12345678');
    expect(message).not.toContain(USERNAME);
    // A message never ends mid-sentence: no dangling "expected string, " once "received ..." is cut.
    const issues = message.split('\n').filter((line) => line.startsWith('  - '));
    expect(issues.filter((line) => /[,:]\s*$/.test(line))).toEqual([]);
  });

  it('every credential problem of a club is reported, each naming its field', () => {
    const credentials = { username: ` ${USERNAME}`, password: `${PASSWORD}\n`, apiKey: `${API_KEY}\t` };
    const message = errorOf({ clubs: [club({ credentials })] });
    expect(message.split('\n').filter((l) => l.startsWith("  - club 'club-1' credentials: "))).toHaveLength(
      3,
    );
    expect(message).toMatch(/username starts with whitespace/);
    expect(message).toMatch(/password ends with a newline/);
    expect(message).toMatch(/apiKey contains a control character \(tab\) at its end/);
  });

  it('credentials that are not an object do not leak either', () => {
    const message = errorOf({ clubs: [club({ credentials: `${USERNAME}:${PASSWORD}:${API_KEY}` })] });
    expect(message).toContain("club 'club-1' credentials:");
  });

  it('an invalid payment rule pattern is a config error, not a failure at poll time', () => {
    const message = errorOf({ clubs: [club({ paymentRules: { declined: ['^ok$', '(unclosed'] } })] });
    expect(message).toContain("club 'club-1' paymentRules.declined.1:");
    expect(message).toContain('RE2 syntax');
  });

  it('lifecycle settings: absent is on with the defaults; partial gets the defaults; out of range names the field', () => {
    const [plain] = parseClubsFile({ clubs: [club()] });
    const [partial] = parseClubsFile({ clubs: [club({ lifecycle: { inactiveDays: 30 } })] });
    expect(plain!.lifecycle).toBeUndefined();
    expect(partial!.lifecycle).toEqual({
      enabled: true,
      inactiveDays: 30,
      expiringDays: 14,
      trialEndingHours: 24,
    });
    const message = errorOf({
      clubs: [club({ lifecycle: { inactiveDays: 0, trialEndingHours: 1.5, typo: true } })],
    });
    expect(message).toContain("club 'club-1' lifecycle.inactiveDays:");
    expect(message).toContain("club 'club-1' lifecycle.trialEndingHours:");
    expect(message).toMatch(/lifecycle: Unrecognized key.*typo/);
  });

  it('duplicate club ids', () => {
    expect(errorOf({ clubs: [club(), club({ timeZone: 'UTC' })] })).toContain(
      "club 'club-1' is listed twice",
    );
  });

  it('every problem of every club is listed, each on its own line', () => {
    const message = errorOf({
      clubs: [
        club({ plan: 'gold' }),
        club({ clubId: 'club-2', timeZone: 'Nowhere/Land', baseUrl: 'http://x.io' }),
      ],
    });
    const lines = message.split('\n').filter((l) => l.startsWith('  - '));
    expect(lines).toHaveLength(3);
    expect(lines.join('\n')).toMatch(
      /club 'club-1' plan:[\s\S]*club 'club-2' baseUrl:[\s\S]*club 'club-2' timeZone:/,
    );
  });

  it('names the origin', () => {
    expect(() => parseClubsFile({}, 'clubs file /etc/clubs.json')).toThrow(
      /^clubs file \/etc\/clubs\.json is invalid/,
    );
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['localhost', true],
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['[::1]', true],
    ['::1', true],
    ['128.0.0.1', false],
    ['127.0.0.1.nip.io', false],
    ['localhost.example.com', false],
    ['example.com', false],
  ])('%s -> %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

describe('readClubsFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'club-config-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads and validates a file', async () => {
    const path = join(dir, 'good.json');
    await writeFile(path, JSON.stringify({ clubs: [club()] }));
    const clubs = await readClubsFile(path);
    expect(clubs.map((c) => c.clubId)).toEqual(['club-1']);
  });

  it('a missing file -> "clubs file not found" with the path', async () => {
    const path = join(dir, 'missing.json');
    await expect(readClubsFile(path)).rejects.toThrow(new ClubConfigError(`clubs file not found: ${path}`));
  });

  it('a directory -> cannot read, with the error code', async () => {
    await expect(readClubsFile(dir)).rejects.toThrow(/cannot read clubs file .* \(EISDIR\)/);
  });

  it.each([
    [
      'a missing comma',
      `{"clubs":[{"clubId":"club-1","credentials":{"password":"${PASSWORD}" "apiKey":"${API_KEY}"}}]}`,
    ],
    ['an unquoted value', `{"clubs":[{"credentials":{"password":${PASSWORD},"apiKey":"${API_KEY}"}}]}`],
    ['a trailing comma', `{"clubs":[{"credentials":{"password":"${PASSWORD}","apiKey":"${API_KEY}",}}]}`],
    ['truncated', `{"clubs":[{"credentials":{"password":"${PASSWORD}`],
  ])('invalid JSON (%s) -> "not valid JSON", without quoting the file', async (_case, text) => {
    const path = join(dir, 'bad.json');
    await writeFile(path, text);
    const err = await readClubsFile(path).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ClubConfigError);
    const everything =
      JSON.stringify(err, Object.getOwnPropertyNames(err)) + String((err as Error).cause ?? '');
    expect((err as Error).message).toContain(`clubs file ${path} is not valid JSON`);
    expect(everything).not.toContain(PASSWORD.slice(0, 8));
    expect(everything).not.toContain(API_KEY.slice(0, 8));
  });

  it.each([
    ['{\n  "clubs": [\n    {"clubId": "a" "x": 1}\n  ]\n}', ' (line 3, column 20)'],
    ['', ' (the file is empty)'],
    ['  \n', ' (the file is empty)'],
  ])('invalid JSON %j: says where, when the parser knows', async (text, where) => {
    const path = join(dir, 'located.json');
    await writeFile(path, text);
    await expect(readClubsFile(path)).rejects.toThrow(
      new ClubConfigError(`clubs file ${path} is not valid JSON${where}`),
    );
  });

  it('a valid JSON file with bad content names the file', async () => {
    const path = join(dir, 'bad-content.json');
    await writeFile(path, JSON.stringify({ clubs: [club({ plan: 'gold' })] }));
    await expect(readClubsFile(path)).rejects.toThrow(`clubs file ${path} is invalid:`);
  });
});
