/**
 * Webhook fan-out Lambda entry point (HANDLER_ENTRIES.webhookFanOut): the handler over the runtime
 * built once per container from the environment (a missing or invalid variable fails the load).
 */
import { createFanOutHandler } from './fan-out-handler';
import { fanOutRuntimeFromEnv } from './runtime';

export const handler = createFanOutHandler(fanOutRuntimeFromEnv(process.env));
