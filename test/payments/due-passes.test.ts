import { describe } from 'vitest';
import { rm } from 'node:fs/promises';
import { LowdbStore } from '../../src/store/index.js';
import { tempDir } from '../helpers/service.js';
import { duePassTests } from './due-passes.js';

describe('background passes on lowdb read only due rows', () => {
  duePassTests(async () => {
    const dir = await tempDir('sp-due-');
    const store = await LowdbStore.open(dir);
    const close = store.close.bind(store);
    store.close = async () => {
      await close();
      await rm(dir, { recursive: true, force: true });
    };
    return store;
  });
});
