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

/**
 * `row` stored exactly, inserted or replacing the row with its id, inside a transaction, its
 * outcome not read: `putLater` where the store has it (PostgreSQL: no round trip of its own,
 * thirteenth round), else an insert-or-read and, when a row was there, an update that sets every
 * field of `row` and removes the old row's others.
 */
export async function putUnread<T extends Row>(t: WriteTable<T>, row: T): Promise<void> {
  if (t.putLater) return t.putLater(row);
  const got = await t.insertOrGet(row);
  if (got.inserted) return;
  const { id, ...fields } = row;
  const gone = Object.fromEntries(Object.keys(got.existing).filter((k) => k !== 'id' && !(k in fields)).map((k) => [k, undefined]));
  await t.update(id, { ...gone, ...fields } as Partial<Omit<T, 'id'>>);
}
