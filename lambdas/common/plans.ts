/** The API's access plans and their monthly request quota per club (upstream API, "Limits"). */
export const PLAN_QUOTAS = { basic: 1_000_000, advanced: 5_000_000 } as const;
export type Plan = keyof typeof PLAN_QUOTAS;
