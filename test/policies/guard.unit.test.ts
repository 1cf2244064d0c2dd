import { tempStore } from '../agent/fakes.js';
import { guardContract } from './guard.contract.js';

guardContract('lowdb', async () => {
  const store = await tempStore();
  return { store, close: () => store.close() };
});

// The same contract with send_transfer writing its reservation in its own transactions (SpendSlot).
guardContract(
  'lowdb',
  async () => {
    const store = await tempStore();
    return { store, close: () => store.close() };
  },
  true,
);
