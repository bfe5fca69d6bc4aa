/**
 * What checking a page for echoed credentials costs (issue 32), on pages of 2.5 MB: the check
 * before issue 32 (one regular expression over the raw body: an escape could hide a credential
 * from it) against the walk over the parsed strings that replaced it (gym-api/credential-scrubber.ts),
 * with JSON.parse for scale. CPU time (process.cpuUsage: steady on a shared machine, where wall time
 * is not), median of 40 runs after 5 warm-ups, one process.
 *
 *   npx tsx bench/credential-check.ts
 */
import { secretPattern } from '../lambdas/common/redact';
import { CredentialScrubber } from '../lambdas/gym-api/credential-scrubber';
import { parseJsonPreservingInt64 } from '../lambdas/gym-api/json';

const SECRETS = [
  'k3Y-Zq7fP2mLx9wQ',
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjbHViLTEiLCJleHAiOjE3OTk5OTk5OTl9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg',
  'S3cretPassw0rd!',
  'integrator-ab12cd:S3cretPassw0rd!',
  'Basic aW50ZWdyYXRvci1hYjEyY2Q6UzNjcmV0UGFzc3cwcmQh',
  'integrator-ab12cd',
];

/** A member of about 5 KB: the largest records a page of 500 would hold at 2.5 MB. */
function member(i: number): Record<string, unknown> {
  const notes = Object.fromEntries(
    Array.from({ length: 40 }, (_, f) => [
      `Custom${f}`,
      `value ${i}-${f}: José O'Brien <front desk> & co + 50% off`,
    ]),
  );
  return {
    Number: `M${100000 + i}`,
    FirstName: 'José',
    LastName: "O'Brien",
    Status: 'Active',
    LastUpdatedUtcDateTime: '2026-05-04T07:50:00',
    Contact: { Email: `m${i}@example.com`, Mobile: '+61 400 000 000', OptOutEmail: false, OptOutSms: true },
    Membership: { Id: 3, Name: 'Gold 12 month', StartDate: '2026-01-04T00:00:00', Type: 'DD' },
    ...notes,
  };
}

/** .NET's System.Text.Json default: `+ < > & '` and everything beyond ASCII as `\uXXXX`. */
const dotnet = (text: string) =>
  text.replace(
    /[+<>&'\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
  );

function page(records: number, escaped: boolean): string {
  const text = JSON.stringify({
    href: 'https://api.example.com/v1/members?offset=0&limit=500',
    next: 'https://api.example.com/v1/members?offset=500&limit=500',
    data: Array.from({ length: records }, (_, i) => member(i)),
  });
  return escaped ? dotnet(text) : text;
}

function median(run: () => void, reps = 40): number {
  for (let i = 0; i < 5; i++) run();
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const start = process.cpuUsage();
    run();
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const pattern = secretPattern(SECRETS)!;
const scrubber = new CredentialScrubber(SECRETS);
for (const escaped of [false, true]) {
  let body = page(500, escaped);
  while (body.length < 2.5e6) body = page(Math.round((500 * 2.5e6) / body.length) + 1, escaped);
  const before = median(() => {
    pattern.lastIndex = 0;
    pattern.test(body);
  });
  const parse = median(() => parseJsonPreservingInt64(body), 10);
  const parsed = parseJsonPreservingInt64(body);
  const after = median(() => scrubber.values(parsed));
  const changed = scrubber.values(parsed);
  process.stdout.write(
    `${(body.length / 1e6).toFixed(2)} MB ${escaped ? '(.NET escapes)' : '(plain)       '}: ` +
      `before (regex over the raw body) ${before.toFixed(2)} ms; after (walk of the parsed strings) ${after.toFixed(2)} ms; ` +
      `JSON.parse ${parse.toFixed(1)} ms (CPU); strings changed ${changed}\n`,
  );
}
