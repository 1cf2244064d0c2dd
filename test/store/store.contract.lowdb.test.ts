import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LowdbStore } from '../../src/store/index.js';
import { storeContract } from './store.contract.js';

storeContract('lowdb', () => {
  let dir: string | undefined;
  return {
    async open() {
      dir = await mkdtemp(path.join(os.tmpdir(), 'sp-contract-'));
      return LowdbStore.open(dir);
    },
    reopen: () => LowdbStore.open(dir!),
    cleanup: () => rm(dir!, { recursive: true, force: true }),
  };
});
