import { afterEach, describe, expect, it } from 'vitest';
import '../../src/service.js';
import { PgStore } from '../../src/store/index.js';
import { Payments, type Payment } from '../../src/payments/payments.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { statementCounter } from '../helpers/pg-statements.js';

/**
 * Issue 23, tenth round (h10pg), PostgreSQL only: `updateWithBefore` (every payment status change:
 * a settle's claim and its `settled`) has the server send the row before only; the row after is
 * built from it and the patch as sent (src/store/pg/pg-table.ts `applied`), and is what a read
 * then finds.
 */
const opened: Array<{ db: TestDatabase; store: PgStore }> = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.store.close().finally(() => o.db.drop());
});

describe('PostgreSQL store: updateWithBefore sends one row back', () => {
  it('RETURNING the row before only; the row after equals the stored row (a removed field, nested values, a null)', async () => {
    const db = await createDatabase('h10pg_wb');
    const s = await PgStore.open(db.url, { poolMax: 2 });
    opened.push({ db, store: s });
    const row = { id: 'p1', accountId: 'acct_w', livemode: true, reference: 'r1', status: 'pending', txHash: '0x1', meta: { a: [1, { b: 'c' }] }, description: 'd' } as unknown as Payment;
    await s.transaction((tx) => tx.table(Payments).insert(row));
    const counter = statementCounter();
    counter.start();
    const r = await s.transaction((tx) =>
      tx.table(Payments).updateWithBefore('p1', { status: 'processing', txHash: undefined, meta: { n: 2, list: ['x'] }, description: null, payer: '0xabc' } as unknown as Partial<Payment>, { status: 'pending' }),
    );
    const { statements } = counter.stop();
    counter.restore();
    const update = statements.join('\n');
    expect(update).toMatch(/RETURNING \(SELECT o\.doc FROM "payments" o WHERE o\.id = \$1\) AS before/);
    expect(update).not.toMatch(/RETURNING doc/);
    expect(r?.before).toEqual(row);
    const stored = await s.table(Payments).get('p1');
    // Payments carry a row version (TableDef.version): the row after has the one its statement bumped.
    expect(r?.after).toEqual(stored);
    expect(r?.after).toEqual({ id: 'p1', accountId: 'acct_w', livemode: true, reference: 'r1', status: 'processing', meta: { n: 2, list: ['x'] }, description: null, payer: '0xabc', version: 1 });
    expect(Object.isFrozen(r?.after) && Object.isFrozen((r?.after as unknown as { meta: object }).meta)).toBe(true);
    // The compare-and-set that finds nothing still answers undefined.
    expect(await s.transaction((tx) => tx.table(Payments).updateWithBefore('p1', { status: 'settled' } as Partial<Payment>, { status: 'pending' }))).toBeUndefined();
  });
});
