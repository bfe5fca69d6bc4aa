/**
 * Loads a club for a poll: its authoritative record from the registry and its credentials from the
 * secrets reader (cached), joined and validated into the engine's ClubConfig.
 */

import type { PiiPolicy } from '../events/pii';
import type { ClubConfig } from './club-config';
import { type ClubRecord, toClubConfig } from './club-record';
import type { ClubRegistry } from './club-registry';
import { ClubSecretError, type ClubSecretsReader } from './club-secrets';

export type LoadedClub =
  | { readonly status: 'ready'; readonly record: ClubRecord; readonly config: ClubConfig }
  | { readonly status: 'unknown' }
  | { readonly status: 'disabled'; readonly record: ClubRecord };

export interface LoadClubDeps {
  readonly registry: ClubRegistry;
  readonly secrets: ClubSecretsReader;
  /** PII policy of clubs whose record sets none. */
  readonly piiPolicyDefault: PiiPolicy;
  /** Secrets the runtime may read start with this (CLUB_SECRET_PREFIX); others are refused. */
  readonly secretPrefix?: string;
}

/** Throws ClubSecretError (secret missing, unreadable, malformed) or ClubRecordError (invalid club). */
export async function loadClub(deps: LoadClubDeps, clubId: string): Promise<LoadedClub> {
  const record = await deps.registry.get(clubId);
  if (!record) return { status: 'unknown' };
  if (!record.enabled) return { status: 'disabled', record };
  if (deps.secretPrefix !== undefined && !record.secretName.startsWith(deps.secretPrefix)) {
    throw new ClubSecretError(
      record.secretName,
      `club '${clubId}' names secret '${record.secretName}', outside the prefix '${deps.secretPrefix}' this deployment may read`,
      false,
    );
  }
  const credentials = await deps.secrets.credentials(record.secretName, clubId);
  return {
    status: 'ready',
    record,
    config: toClubConfig(record, credentials, { piiPolicy: deps.piiPolicyDefault }),
  };
}
