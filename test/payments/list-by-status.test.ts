import { describe } from 'vitest';
import { LowdbStore } from '../../src/store/index.js';
import { listByStatusTests } from './list-by-status.js';

describe('GET /v1/payments?status= on lowdb pages in the store', () => {
  listByStatusTests(async () => LowdbStore.inMemory());
});
