/** Minimal types for `dynalite` (an in-process DynamoDB implementation; the package ships none). */
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** How long tables stay CREATING / DELETING / UPDATING, in ms. @default 500 */
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    /** @default 400 */
    maxItemSizeKb?: number;
    /** LevelDB directory; in memory when absent. */
    path?: string;
    verbose?: boolean;
    debug?: boolean;
  }

  function dynalite(options?: DynaliteOptions): Server;
  export = dynalite;
}
