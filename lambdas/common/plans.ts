/**
 * The API's access plans, their monthly quota, and the share of it the bridge keeps free by
 * default: the runtime's default (engine/schedule/quota-budget.ts) and the stack's
 * (lib/stage-config.ts, lib/constructs/poller.ts) are the one constant here.
 */

/** The API's access plans and their monthly request quota per club (upstream API, "Limits"). */
export const PLAN_QUOTAS = { basic: 1_000_000, advanced: 5_000_000 } as const;
export type Plan = keyof typeof PLAN_QUOTAS;

/** Share of each plan's monthly quota kept free by default (the `QUOTA_RESERVE` setting, 0 <= x < 1). */
export const DEFAULT_QUOTA_RESERVE = 0.1;
