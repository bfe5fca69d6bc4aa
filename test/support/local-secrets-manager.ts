/**
 * The tests' Secrets Manager is the one `local-aws` serves (local-aws/local-secrets-manager.ts:
 * version stages, UpdateSecretVersionStage, counters and injected faults), so what a person runs
 * locally is what the tests prove.
 */
export {
  type LocalSecretsManager,
  type LocalSecretsManagerOptions,
  startLocalSecretsManager,
} from '../../local-aws/local-secrets-manager';
