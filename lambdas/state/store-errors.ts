/** The state store's errors (the port is ./store.ts, which re-exports them). */
import type { SourceName } from '../common/source-names';

/** The store could not do what was asked (service error, throttled past all retries, bad input). */
export class StoreError extends Error {
  override readonly name: string = 'StoreError';
  /** The DynamoDB operation involved, when there was one (e.g. `BatchWriteItem`). */
  readonly operation: string | undefined;

  constructor(message: string, options?: { cause?: unknown; operation?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.operation = options?.operation;
  }
}

/**
 * A versioned write lost: the stored cursor is not at the version the writer read. Another poller
 * wrote in between; the writer must not retry blindly but re-read (or give up the poll).
 */
export class ConcurrentModificationError extends Error {
  override readonly name = 'ConcurrentModificationError';

  constructor(
    readonly clubId: string,
    readonly source: SourceName,
    readonly expectedVersion: number,
    options?: { cause?: unknown },
  ) {
    super(
      `cursor ${clubId}/${source} is no longer at version ${expectedVersion}: another writer updated it`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
  }
}
