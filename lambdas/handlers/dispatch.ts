/**
 * Dispatch Lambda entry point (HANDLER_ENTRIES.dispatch): the dispatch handler (dispatch-handler.ts)
 * over the runtime built once per container, when this module loads, from the deployment
 * contract's environment variables (dispatch-runtime.ts). A missing or invalid variable fails the
 * load, naming the variable and what it should hold. Importing this module therefore needs that
 * environment: code that only wants the dispatcher's decision imports engine/dispatch/dispatch-due-clubs.ts.
 */
import { createDispatchHandler } from './dispatch-handler';
import { dispatchRuntimeFromEnv } from './dispatch-runtime';

export type { DispatchSummary } from '../engine/dispatch/dispatch-due-clubs';

export const handler = createDispatchHandler(dispatchRuntimeFromEnv(process.env));
