import { MemoryStateStore } from '../../../lambdas/state/memory-store';
import { describeStateStoreContract } from './state-store-contract';

describeStateStoreContract('MemoryStateStore', async () => {
  let now = 0;
  const store = new MemoryStateStore({ now: () => now });
  return {
    store,
    setNow: (ms) => {
      now = ms;
    },
  };
});
