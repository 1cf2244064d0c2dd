/**
 * `deferDurability` on the embedded store (issue 23, eighth round): the commit is visible at
 * once and goes to disk with the next durable commit or `sync()`, never before it and never
 * without it (what is on disk is read back from the files, as a crash would leave them).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LowdbStore, defineTable } from '../../src/store/index.js';
import { storedTables } from '../helpers/stored.js';

const Rows = defineTable<{ id: string; n: number }>({ name: 'rows' });
let dir: string;
let store: LowdbStore;
const onDisk = async () => ((await storedTables(dir)).tables.rows ?? []).map((r) => (r as { id: string }).id).sort();

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sp-store-defer-'));
  store = await LowdbStore.open(dir);
  await store.write(Rows, (t) => t.insert({ id: 'a', n: 1 }));
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a transaction with deferDurability (lowdb)', () => {
  it('is visible at once, not on disk until the next durable commit, then on disk with it', async () => {
    await store.transaction((tx) => tx.table(Rows).insert({ id: 'b', n: 2 }), { deferDurability: true });
    expect((await store.table(Rows).get('b'))?.n).toBe(2);
    expect(await onDisk()).toEqual(['a']);
    // A later durable commit (the relay journal's, for an agent transfer) carries it.
    await store.write(Rows, (t) => t.insert({ id: 'c', n: 3 }));
    expect(await onDisk()).toEqual(['a', 'b', 'c']);
  });

  it('sync() writes what was deferred, and costs no write when nothing was', async () => {
    await store.transaction((tx) => tx.table(Rows).insert({ id: 'b', n: 2 }), { deferDurability: true });
    await store.sync();
    expect(await onDisk()).toEqual(['a', 'b']);
    const db = (store as unknown as { db: { write: () => Promise<void> } }).db;
    const write = db.write.bind(db);
    let writes = 0;
    db.write = () => (writes++, write());
    await store.sync();
    expect(writes).toBe(0);
  });

  it('close() writes what was deferred', async () => {
    await store.transaction((tx) => tx.table(Rows).insert({ id: 'b', n: 2 }), { deferDurability: true });
    await store.close();
    expect(await onDisk()).toEqual(['a', 'b']);
    store = await LowdbStore.open(dir);
  });
});
