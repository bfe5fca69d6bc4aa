/**
 * One generic way to decorate the state store port without restating its nineteen methods: every
 * call goes through `around` (which sees the method and its arguments and runs the call), unless
 * an override takes that method over. The test suite's fault-injecting store and the bench's
 * counting store are decorations; a method added to the port is decorated at once (the list below
 * fails the type check until it names it).
 */
import type { StateStore } from './store';

export type StoreMethod = keyof StateStore;

/** Every method of the port, once. */
export const STATE_STORE_METHODS = [
  'getCursor',
  'listCursors',
  'putCursor',
  'openClub',
  'readClubStates',
  'filterSeen',
  'putSeen',
  'seenSince',
  'seenEntriesSince',
  'putSeenAt',
  'getSeenDigest',
  'putSeenDigest',
  'getSnapshots',
  'putSnapshots',
  'listSnapshots',
  'addQuotaUsage',
  'getQuotaUsage',
  'putQuarantined',
  'listQuarantined',
  'getLifecycle',
  'putLifecycle',
] as const satisfies readonly StoreMethod[];

// The list names every method of the port: a method missing from it is a type error here.
type Unlisted = Exclude<StoreMethod, (typeof STATE_STORE_METHODS)[number]>;
const _everyMethodListed: [Unlisted] extends [never] ? true : Unlisted = true;
void _everyMethodListed;

type AnyCall = (...args: unknown[]) => Promise<unknown>;

/** Runs one call of the port: `call()` makes it on the decorated store. */
export type AroundCall = (
  method: StoreMethod,
  args: readonly unknown[],
  call: () => Promise<unknown>,
) => Promise<unknown>;

/** Methods the decoration implements itself (they may call the inner store as they like). */
export type StoreOverrides = Partial<Pick<StateStore, StoreMethod>>;

export function decorateStore(
  inner: StateStore,
  around: AroundCall,
  overrides: StoreOverrides = {},
): StateStore {
  const decorated: Partial<Record<StoreMethod, AnyCall>> = {};
  for (const method of STATE_STORE_METHODS) {
    const own = overrides[method] as AnyCall | undefined;
    const target = (inner[method] as AnyCall).bind(inner);
    decorated[method] = own ?? ((...args) => around(method, args, () => target(...args)));
  }
  return decorated as StateStore;
}
