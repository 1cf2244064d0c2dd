import type { Row, WriteTable, Where } from './types.js';

/**
 * A write inside a transaction whose outcome nobody reads: `updateLater` where the store has it
 * (PostgreSQL: sent with the transaction's next statement or its COMMIT, no round trip of its
 * own), else `update`, awaited.
 */
export async function updateUnread<T extends Row>(t: WriteTable<T>, id: string, patch: Partial<Omit<T, 'id'>>, expect?: Where<T>): Promise<void> {
  if (t.updateLater) t.updateLater(id, patch, expect);
  else await t.update(id, patch, expect);
}

/**
 * An insert inside a transaction of a row with a fresh key, answered with the row as given:
 * `insertLater` where the store has it (PostgreSQL: no round trip of its own, tenth round), else
 * `insert`.
 */
export async function insertUnread<T extends Row>(t: WriteTable<T>, row: T): Promise<T> {
  return t.insertLater ? t.insertLater(row) : t.insert(row);
}
