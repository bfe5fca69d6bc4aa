/** Club registry (table) and club secrets (Secrets Manager) of the deployed bridge. See docs/operations.md. */
export {
  type ClubRecord,
  ClubRecordError,
  ClubRecordSchema,
  clubRecordFrom,
  parseClubRecord,
  toClubConfig,
} from './club-record';
export { type ClubListing, type ClubRegistry, ClubRegistryError } from './club-registry';
export {
  ClubSecretConflictError,
  ClubSecretContentionError,
  type ClubSecretWrite,
  checkClubSecretWrite,
  putClubSecret,
  putSharedClubKeys,
} from './club-secret-writes';
export {
  type ClubCredentials,
  ClubCredentialsSchema,
  ClubSecretError,
  type ClubSecretsReader,
  DEFAULT_SECRET_CACHE_TTL_MS,
  parseCredentials,
  parseSecretDocument,
  SecretsManagerClubSecrets,
  type SecretsManagerClubSecretsOptions,
} from './club-secrets';
export {
  CLUB_CONFIG_SK,
  clubConfigKey,
  clubDirectoryKey,
  clubDirectoryPk,
  DynamoDbClubRegistry,
  type DynamoDbClubRegistryOptions,
  LEGACY_CLUB_DIRECTORY_PK,
} from './dynamodb-club-registry';
export { type LoadClubDeps, type LoadedClub, loadClub } from './load-club';
export { MemoryClubRegistry } from './memory-club-registry';
