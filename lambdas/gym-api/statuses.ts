/**
 * The known status values of members and prospects (docs/upstream-api.md). The schemas keep status
 * fields plain strings, so an unknown value from upstream passes: these lists are what the sandbox
 * generates, what the `status` filter accepts, and what a value is compared with.
 */

export const MEMBER_STATUSES = [
  'Active',
  'PaymentIssue',
  'Suspended',
  'Archived',
  'PendingActivation',
  'PendingOnlineSignup',
] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

export const PROSPECT_STATUSES = [
  'Trial_Expired',
  'Enquiry',
  'NotInterested',
  'OnTrial',
  'Tour',
  'NoSaleReturn',
  'DidNotShow',
  'Sale',
] as const;
export type ProspectStatus = (typeof PROSPECT_STATUSES)[number];

export const isKnownMemberStatus = (s: string): s is MemberStatus =>
  (MEMBER_STATUSES as readonly string[]).includes(s);
export const isKnownProspectStatus = (s: string): s is ProspectStatus =>
  (PROSPECT_STATUSES as readonly string[]).includes(s);
