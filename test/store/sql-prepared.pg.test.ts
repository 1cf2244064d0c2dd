import { afterEach, describe, expect, it } from 'vitest';
import '../../src/service.js';
import { PgStore, updateUnread } from '../../src/store/index.js';
import { Payments, type Payment } from '../../src/payments/payments.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { statementCounter } from '../helpers/pg-statements.js';

/**
 * Issue 23, tenth round (h10pg), PostgreSQL only: a named statement (a plan that does not depend
 * on its values) travelling in a round trip of several statements goes as `EXECUTE` of a copy
 * prepared once per connection (src/store/pg/sql-prepared.ts), so the server no longer parses,
 * analyses and plans it on every call (about a quarter of the backends' CPU in a settle burst).
 */
const opened: Array<{ db: TestDatabase; store: PgStore }> = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.store.close().finally(() => o.db.drop());
});

const row = (id: string): Payment =>
  ({ id, accountId: 'acct_p', livemode: true, reference: `ref-${id}`, status: 'pending', description: '' }) as unknown as Payment;

/** One connection, so every transaction meets the same session. */
async function open(tag: string) {
  const db = await createDatabase(tag);
  const store = await PgStore.open(db.url, { poolMax: 1 });
  opened.push({ db, store });
  await store.transaction(async (tx) => {
    for (const id of ['a', 'b']) await tx.table(Payments).insert(row(id));
  });
  return store;
}

/** A held write and a read by id: one round trip of several statements, then the COMMIT. */
const writeAndRead = (s: PgStore, patch: Record<string, unknown>) =>
  s.transaction(async (tx) => {
    const t = tx.table(Payments);
    void updateUnread(t, 'a', patch as Partial<Payment>, { status: 'pending' });
    return (await t.get('a'))?.description;
  });

describe('PostgreSQL store: prepared statements inside round trips of several statements', () => {
  it('prepared once per connection (in the round trip that first needs it), then EXECUTE only', async () => {
    const s = await open('h10pg_prep');
    const counter = statementCounter();
    const sent: string[][] = [];
    for (const v of ['v1', 'v2', 'v3']) {
      counter.start();
      expect(await writeAndRead(s, { description: v })).toBe(v);
      sent.push(counter.stop().statements);
    }
    counter.restore();
    const [first, ...later] = sent;
    expect(first![0]).toMatch(/^BEGIN ISOLATION LEVEL SERIALIZABLE;\nPREPARE x\d+_sp_\w+ AS UPDATE "payments" [^;]*;\nPREPARE x\d+_sp_\w+ AS SELECT doc FROM "payments" WHERE id = \$1;\nEXECUTE /s);
    for (const statements of later) {
      expect(statements).toHaveLength(2);
      // Only the names and the values travel: no statement text to parse and plan.
      expect(statements[0]).toMatch(/^BEGIN ISOLATION LEVEL SERIALIZABLE;\nEXECUTE x\d+_sp_\w+\('a', .*\);\nEXECUTE x\d+_sp_\w+\('a'\)$/s);
      expect(statements.join('\n')).not.toMatch(/PREPARE|UPDATE|SELECT/);
    }
    expect((await s.table(Payments).get('a'))?.description).toBe('v3');
  });

  it('after a round trip that failed before its PREPAREs ran, the connection prepares again (new names) and works', async () => {
    const s = await open('h10pg_prep_fail');
    // A key no text can carry (NUL): the server refuses the whole query string, so none of it
    // ran, its PREPAREs neither.
    await expect(writeAndRead(s, { ['bad\u0000key']: undefined })).rejects.toThrow();
    const counter = statementCounter();
    counter.start();
    expect(await writeAndRead(s, { description: 'after' })).toBe('after');
    const { statements } = counter.stop();
    counter.restore();
    expect(statements[0]).toMatch(/PREPARE x1_sp_/);
    expect(await writeAndRead(s, { description: 'again' })).toBe('again');
  });
});
