/** The gym API sandbox: a runnable, seeded implementation of the reporting API. See docs/sandbox.md. */

export { ADMIN_JOURNAL_PATH, ADMIN_POISON_PATH } from './admin-routes';
export type { AmbiguousZone, PlanName } from './club-profile';
export {
  DEFAULT_FAULTS,
  type Faults,
  type FaultsInput,
  type ForcedResponse,
  InvalidFaultSettingError,
} from './faults';
export { BASE_PATH } from './http-api';
export { MESSAGES } from './http-replies';
export type { ContactPreferences, JournalChange, JournalEntry, JournalKind } from './journal';
export {
  type ClubSpec,
  DEFAULT_CLUB_ZONES,
  type DstTransitionKind,
  InvalidSandboxOptionError,
  type SandboxOptions,
} from './options';
export { type PoisonExpectation, type PoisonLogEntry, storedMarker } from './poison/poison-log';
export {
  POISON_PAYMENT_ID_BASE,
  POISON_POS_ID_BASE,
  POISON_POS_ITEM_ID_BASE,
} from './poison/record-shapes';
export {
  POISON_OFF,
  POISON_ON,
  type PoisonInput,
  type PoisonKind,
  type PoisonSettings,
  RESPONSE_POISON_KINDS,
  type ResponsePoisonKind,
  STORED_POISON_KINDS,
  type StoredPoisonKind,
} from './poison/settings';
export { STORED_VARIANT_IDS } from './poison/stored-variants';
export { PLAN_MONTHLY_REQUESTS, type RequestCounts } from './quota';
export {
  type ClubsFile,
  type LiveOptions,
  type RecordQuery,
  type Sandbox,
  type SandboxClub,
  type SandboxPoison,
  startSandbox,
  UnknownClubError,
} from './sandbox';
export { PAYMENT_RESPONSES } from './vocabulary';
