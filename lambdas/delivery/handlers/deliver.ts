/**
 * Webhook delivery Lambda entry point (HANDLER_ENTRIES.webhookDeliver): the handler over the
 * runtime built once per container from the environment (a missing or invalid variable fails the
 * load, naming it).
 */
import { createDeliverHandler } from './deliver-handler';
import { deliverRuntimeFromEnv } from './runtime';

export const handler = createDeliverHandler(deliverRuntimeFromEnv(process.env));
