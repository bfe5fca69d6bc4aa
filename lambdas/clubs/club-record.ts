/**
 * A club as the deployed bridge stores it: the ClubConfig fields without the credentials, plus the
 * name of the Secrets Manager secret that holds them. `toClubConfig` joins a record and its
 * credentials into the ClubConfig the engine polls with, validated by ClubConfigSchema.
 */
import { z } from 'zod';
import { PII_POLICIES, type PiiPolicy } from '../events/pii';
import { type ClubConfig, ClubConfigSchema } from './club-config';
import type { ClubCredentials } from './club-secrets';

export const ClubRecordSchema = ClubConfigSchema.omit({
  credentials: true,
  enabled: true,
  piiPolicy: true,
  unstatedZone: true,
  unstatedZoneConfirmed: true,
}).extend({
  enabled: z.boolean(),
  /** Secrets Manager secret holding `{ username, password, apiKey }` (JSON). */
  secretName: z.string().min(1).max(512),
  /** Absent: the deployment's default (`PII_POLICY_DEFAULT`). */
  piiPolicy: z.enum(PII_POLICIES).optional(),
  /** Absent: 'local'. */
  unstatedZone: z.enum(['local', 'utc']).optional(),
  /** Absent: false (not confirmed). */
  unstatedZoneConfirmed: z.boolean().optional(),
  /** When the record was last written (UTC ISO). */
  updatedAt: z.string().optional(),
});
export type ClubRecord = z.infer<typeof ClubRecordSchema>;

/** A stored club record or its credentials do not make a valid club. Never quotes a credential. */
export class ClubRecordError extends Error {
  override readonly name = 'ClubRecordError';
  constructor(
    readonly clubId: string,
    message: string,
  ) {
    super(message);
  }
}

/** `- field: problem` lines; values of credential fields are never quoted. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.join('.') || '(record)';
      // The credentials' own checks (credentialProblem) name the field, never the value; zod's
      // built-in messages may quote what they received.
      const message =
        field.startsWith('credentials') && issue.code !== 'custom' ? 'missing or empty' : issue.message;
      return `  - ${field}: ${message}`;
    })
    .join('\n');
}

/** Validates a record read from the table (extra attributes such as keys are dropped first). */
export function parseClubRecord(item: Record<string, unknown>): ClubRecord {
  const { pk: _pk, sk: _sk, ...fields } = item;
  const result = ClubRecordSchema.safeParse(fields);
  if (!result.success) {
    const clubId = typeof fields.clubId === 'string' ? fields.clubId : '(unknown)';
    throw new ClubRecordError(clubId, `stored club '${clubId}' is invalid:\n${describeIssues(result.error)}`);
  }
  return result.data;
}

/** The record of a validated ClubConfig: everything but the credentials. */
export function clubRecordFrom(
  config: ClubConfig,
  secretName: string,
  options: { readonly explicitPiiPolicy?: boolean; readonly updatedAt?: string } = {},
): ClubRecord {
  const { credentials: _credentials, piiPolicy, ...rest } = config;
  return ClubRecordSchema.parse({
    ...rest,
    secretName,
    ...(options.explicitPiiPolicy === false ? {} : { piiPolicy }),
    ...(options.updatedAt ? { updatedAt: options.updatedAt } : {}),
  });
}

/** Joins a record and its credentials into the engine's ClubConfig. */
export function toClubConfig(
  record: ClubRecord,
  credentials: ClubCredentials,
  defaults: { readonly piiPolicy: PiiPolicy },
): ClubConfig {
  const { secretName: _secretName, updatedAt: _updatedAt, ...fields } = record;
  const result = ClubConfigSchema.safeParse({
    ...fields,
    piiPolicy: record.piiPolicy ?? defaults.piiPolicy,
    credentials: {
      username: credentials.username,
      password: credentials.password,
      apiKey: credentials.apiKey,
    },
  });
  if (!result.success) {
    throw new ClubRecordError(
      record.clubId,
      `club '${record.clubId}' is invalid:\n${describeIssues(result.error)}`,
    );
  }
  return result.data;
}
