/**
 * What every part of the StateStore contract shares: the adapter under test and its factory, the
 * clubs and instant the tests use, a fresh store per test with its clock at T0, and fingerprints.
 */
import type { BridgeStateStore } from '../../../lambdas/state/state-store';

export interface StoreUnderTest {
  store: BridgeStateStore;
  /** Sets the clock the store uses where the port takes no time (listQuarantined). */
  setNow(ms: number): void;
}

export type StoreFactory = () => Promise<StoreUnderTest>;

export const CLUB = 'club-1';
export const OTHER_CLUB = 'club-2';
export const T0 = Date.UTC(2025, 2, 1, 0, 0, 0);

/** A new store from `makeStore`, its clock set to T0: what each contract test starts from. */
export async function freshStore(makeStore: StoreFactory): Promise<StoreUnderTest> {
  const underTest = await makeStore();
  underTest.setNow(T0);
  return underTest;
}

export function fingerprints(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}:${i.toString().padStart(4, '0')}`);
}
