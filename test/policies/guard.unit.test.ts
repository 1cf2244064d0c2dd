import { tempStore } from '../agent/fakes.js';
import { guardContract } from './guard.contract.js';

guardContract('lowdb', async () => {
  const store = await tempStore();
  return { store, close: () => store.close() };
});
