import { afterAll } from 'vitest';
import { dropRegisteredDatabases } from './pg-target.js';

// The `pg` project: every file's databases go when the file is done.
afterAll(async () => {
  await dropRegisteredDatabases();
});
