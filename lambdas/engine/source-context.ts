/**
 * Which source of a club poll the current async work belongs to. `pollClub` polls a club's sources
 * concurrently and runs each inside `sourceContext.run(name, ...)`, so code below it (log context,
 * the benchmark's request counters) can tell whose request it is without being passed the name.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { SourceName } from '../state/store';

export const sourceContext = new AsyncLocalStorage<SourceName>();

/** The source whose poll is running here, if any (undefined in club-level work). */
export function currentSource(): SourceName | undefined {
  return sourceContext.getStore();
}
