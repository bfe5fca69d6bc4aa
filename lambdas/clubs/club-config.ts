/**
 * A club's configuration, and the clubs file of the CLI (docs/cli.md, "Clubs file"):
 * { "clubs": [ { clubId, baseUrl, timeZone, plan, credentials: { username, password, apiKey } } ] }
 * Validation errors name the club and the field, and never echo a credential.
 */
import { z } from 'zod';
import { type CredentialField, credentialProblem } from '../common/credential-text';
import { CLUB_ID_PATTERN, CLUB_ID_RULE } from '../common/deployment-contract';
import { compileLinearPattern } from '../common/linear-pattern';
import { parseOpeningHours } from '../common/opening-hours';
import { PLAN_QUOTAS } from '../common/plans';
import { SOURCE_NAMES } from '../common/source-names';
import { assertTimeZone } from '../common/zoned-time';
import { DEFAULT_PII_POLICY, PII_POLICIES } from '../events/pii';

export { PLAN_QUOTAS, type Plan } from '../common/plans';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

const baseUrl = z.string().superRefine((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // A value with '@' may hold user:password: never quote it.
    const shown = value.includes('@') ? '' : `: '${value}'`;
    ctx.addIssue({ code: 'custom', message: `not a URL${shown}` });
    return;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    ctx.addIssue({
      code: 'custom',
      message: `must be https:// (or http:// to a loopback host), got ${url.protocol}`,
    });
  } else if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    ctx.addIssue({
      code: 'custom',
      message: `plain http:// is refused for ${url.hostname}: credentials would travel unencrypted (use https://)`,
    });
  }
  if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'must not embed credentials' });
  if (url.search || url.hash) ctx.addIssue({ code: 'custom', message: 'must not carry a query or fragment' });
});

const timeZone = z.string().superRefine((value, ctx) => {
  try {
    assertTimeZone(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: `unknown IANA time zone '${value}' (e.g. Australia/Sydney)` });
  }
});

const CREDENTIAL_FIELDS: readonly CredentialField[] = ['username', 'password', 'apiKey'];

/**
 * The integrator login and the club's API key, each held to credentialProblem (common/
 * credential-text.ts: what can travel in an HTTP header); an issue names the field, never the value.
 */
const credentials = z
  .strictObject({ username: z.string(), password: z.string(), apiKey: z.string() })
  .superRefine((value, ctx) => {
    for (const field of CREDENTIAL_FIELDS) {
      const problem = credentialProblem(field, value[field]);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }
  });

/** A payment rule pattern, compiled as the classifier compiles it, so a typo fails at load time. */
/** A payment rule: RE2 syntax, run in linear time (../common/linear-pattern.ts); refused here, not at poll time. */
const rulePattern = z.string().superRefine((source, ctx) => {
  try {
    compileLinearPattern(source);
  } catch (err) {
    ctx.addIssue({
      code: 'custom',
      message: `not a pattern the linear-time engine takes (RE2 syntax: no lookaround, no backreferences): ${(err as Error).message}`,
    });
  }
});

/**
 * The lifecycle events' settings (docs/lifecycle.md). Absent: on, with the defaults. The bounds
 * keep a typo from announcing every member (0 days) or none for years.
 */
export const LifecycleConfigSchema = z.strictObject({
  /** @default true */
  enabled: z.boolean().default(true),
  /** Days without a visit after which an Active member is announced inactive. @default 14 */
  inactiveDays: z.number().int().min(1).max(365).default(14),
  /** Days before an ExpiryDate or MinimumTermDate that Membership Expiring is announced. @default 14 */
  expiringDays: z.number().int().min(1).max(365).default(14),
  /** Hours before a TrialEndDate that Prospect Trial Ending is announced. @default 24 */
  trialEndingHours: z.number().int().min(1).max(720).default(24),
});
export type LifecycleConfig = z.infer<typeof LifecycleConfigSchema>;

/** An `HH:MM-HH:MM` range, checked as the fast lane reads it. */
const openingHours = z.string().superRefine((value, ctx) => {
  try {
    parseOpeningHours(value);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
  }
});

/**
 * The visits fast lane (docs/operations.md, "The fast lane for visits"). Absent: on, with no
 * opening hours (the lane then follows the club's recent visits alone).
 */
export const FastLaneConfigSchema = z.strictObject({
  /** @default true */
  enabled: z.boolean().default(true),
  /** `HH:MM-HH:MM`, the club's local time: the lane is on inside them whatever the recent visits. */
  openingHours: openingHours.optional(),
});

export const ClubConfigSchema = z.strictObject({
  clubId: z.string().regex(CLUB_ID_PATTERN, CLUB_ID_RULE),
  baseUrl,
  timeZone,
  plan: z.enum(Object.keys(PLAN_QUOTAS) as [keyof typeof PLAN_QUOTAS, ...(keyof typeof PLAN_QUOTAS)[]]),
  credentials,
  /** @default true */
  enabled: z.boolean().default(true),
  /**
   * The sources to poll. @default every non-experimental source (`DEFAULT_SOURCES` in
   * lambdas/sources: all but classAttendance, whose endpoint the API document does not describe)
   */
  sources: z.array(z.enum(SOURCE_NAMES)).min(1).optional(),
  /** What contact details travel in events. @default 'minimal' */
  piiPolicy: z.enum(PII_POLICIES).default(DEFAULT_PII_POLICY),
  /** How to read date-times whose zone the API does not state. @default 'local' */
  unstatedZone: z.enum(['local', 'utc']).default('local'),
  /**
   * The operator has checked `unstatedZone` against the club's software (a payment's time in its
   * screens against the API's PaymentDate): the sources in that zone then re-read an hour behind
   * their watermark instead of 15 hours or more. @default false
   */
  unstatedZoneConfirmed: z.boolean().default(false),
  /** Per-club payment classification patterns, checked before the defaults. */
  paymentRules: z
    .strictObject({
      succeeded: z.array(rulePattern).optional(),
      declined: z.array(rulePattern).optional(),
      dishonoured: z.array(rulePattern).optional(),
      pending: z.array(rulePattern).optional(),
    })
    .optional(),
  /** Lifecycle events (Member Inactive, Membership Expiring, ...). @default on, 14 / 14 days, 24 hours */
  lifecycle: LifecycleConfigSchema.optional(),
  /** The visits fast lane: probes every 15 s while the club is active. @default on */
  fastLane: FastLaneConfigSchema.optional(),
});
export type ClubConfig = z.infer<typeof ClubConfigSchema>;

export const ClubsFileSchema = z.strictObject({ clubs: z.array(ClubConfigSchema).min(1, 'lists no club') });

export class ClubConfigError extends Error {
  override readonly name = 'ClubConfigError';
}

function describeIssues(error: z.ZodError, input: unknown): string {
  const clubs = (input as { clubs?: { clubId?: unknown }[] } | undefined)?.clubs;
  return error.issues
    .map((issue) => {
      const [first, index, ...rest] = issue.path;
      const club =
        first === 'clubs' && typeof index === 'number'
          ? `club ${typeof clubs?.[index]?.clubId === 'string' ? `'${clubs[index].clubId}'` : `#${index + 1}`}`
          : '';
      const field = (first === 'clubs' && typeof index === 'number' ? rest : issue.path).join('.');
      // zod messages can quote the received value ("expected string, received number"): never for
      // credentials, where the clause is dropped whole.
      const message = field.startsWith('credentials')
        ? issue.message.replace(/,?\s*received\b.*$/is, '')
        : issue.message;
      return `  - ${[club, field].filter(Boolean).join(' ')}: ${message}`;
    })
    .join('\n');
}

export function parseClubsFile(input: unknown, origin = 'clubs file'): ClubConfig[] {
  const result = ClubsFileSchema.safeParse(input);
  if (!result.success)
    throw new ClubConfigError(`${origin} is invalid:\n${describeIssues(result.error, input)}`);
  const ids = new Set<string>();
  for (const club of result.data.clubs) {
    if (ids.has(club.clubId))
      throw new ClubConfigError(`${origin} is invalid: club '${club.clubId}' is listed twice`);
    ids.add(club.clubId);
  }
  return result.data.clubs;
}
