/**
 * Poll Lambda entry point (HANDLER_ENTRIES.poll): the poll handler (poll-handler.ts) over the
 * runtime built once per container, when this module loads, from the deployment contract's
 * environment variables (poll-runtime.ts). A missing or invalid variable fails the load, naming
 * the variable and what it should hold. Importing this module therefore needs that environment:
 * code that only wants the handler imports poll-handler.ts.
 */
import { createPollHandler } from './poll-handler';
import { pollRuntimeFromEnv } from './poll-runtime';

export const handler = createPollHandler(pollRuntimeFromEnv(process.env));
