/** The gym API sandbox: a runnable, seeded implementation of the reporting API. See docs/sandbox.md. */
export type { AmbiguousZone, PlanName } from './club-store';
export { DEFAULT_FAULTS, type Faults, type ForcedResponse, InvalidFaultSettingError } from './faults';
export { ADMIN_JOURNAL_PATH, BASE_PATH, MESSAGES } from './http-api';
export type { ContactPreferences, JournalChange, JournalEntry, JournalKind } from './journal';
export {
  type ClubSpec,
  DEFAULT_CLUB_ZONES,
  type DstTransitionKind,
  InvalidSandboxOptionError,
  type SandboxOptions,
} from './options';
export { PLAN_MONTHLY_REQUESTS, type RequestCounts } from './quota';
export {
  type ClubsFile,
  type LiveOptions,
  type RecordQuery,
  type Sandbox,
  type SandboxClub,
  startSandbox,
  UnknownClubError,
} from './sandbox';
export { PAYMENT_RESPONSES } from './vocabulary';
