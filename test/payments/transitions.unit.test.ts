/**
 * Issue 22, point 2: a payment's status changes are one table, `TRANSITIONS`
 * (src/payments/payments.ts), and nothing else. Both ways in, `transition` and the in-transaction
 * `transitionIn` that settlement, deposits, refunds and manual capture use, refuse a pair the
 * table does not hold; and docs/architecture.md's state-machine table is that table.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AccountsService } from '../../src/accounts/accounts.js';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import { PaymentsService, TRANSITIONS } from '../../src/payments/payments.js';
import { CreatePaymentInput, PaymentStatus } from '../../src/payments/payment-schemas.js';
import { LowdbStore } from '../../src/store/index.js';

const STATUSES = PaymentStatus.options;
const allowed = (from: PaymentStatus, to: PaymentStatus) => (TRANSITIONS[from] as readonly PaymentStatus[]).includes(to);

async function world() {
  const store = LowdbStore.inMemory();
  const payments = new PaymentsService(store, new FxService(loadFxTable()), 'http://localhost:3000');
  const created = await new AccountsService(store, {}).create({ name: 'Acme Books', email: 'acme@example.com' });
  if (!created.ok) throw new Error(created.message);
  const r = await payments.create(created.account.id, CreatePaymentInput.parse({ amount: 12.5, currency: 'USD', redirect_url: 'https://shop.example/done' }));
  if (!r.ok) throw new Error(r.message);
  return { store, payments, id: r.payment.id };
}

describe('the payment state machine is one table', () => {
  it('transitionIn (inside a caller’s transaction) refuses a pair the table does not hold, and the row stays', async () => {
    const { store, payments, id } = await world();
    await payments.transition(id, 'pending', 'processing');
    await payments.transition(id, 'processing', 'settled', { txHash: '0xabc' });
    // settled -> pending is not a row of the table: a caller's transaction must not make it.
    await expect(store.transaction((tx) => payments.transitionIn(tx, id, 'settled', 'pending'))).rejects.toThrow(/illegal payment transition settled -> pending/);
    await expect(store.transaction((tx) => payments.transitionIn(tx, id, 'settled', 'failed'))).rejects.toThrow(/illegal payment transition/);
    expect((await payments.get(id))?.status).toBe('settled');
    // A row of the table goes through the same door.
    expect((await store.transaction((tx) => payments.transitionIn(tx, id, 'settled', 'refunded')))?.status).toBe('refunded');
  });

  it('every pair outside the table throws through both ways in, before touching the store', async () => {
    const { payments } = await world();
    const untouchable = new Proxy({}, { get: () => { throw new Error('the store was touched'); } }) as never;
    let refused = 0;
    for (const from of STATUSES) {
      for (const to of STATUSES) {
        if (allowed(from, to)) continue;
        await expect(payments.transition('pay_x', from, to)).rejects.toThrow(`illegal payment transition ${from} -> ${to}`);
        await expect(payments.transitionIn(untouchable, 'pay_x', from, to)).rejects.toThrow(`illegal payment transition ${from} -> ${to}`);
        refused++;
      }
    }
    expect(refused).toBe(STATUSES.length ** 2 - STATUSES.reduce((n, from) => n + TRANSITIONS[from].length, 0));
  });

  it('docs/architecture.md’s state-machine table lists exactly the table’s transitions', () => {
    const doc = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    const section = doc.split("### The payment's state machine")[1]?.split('\n## ')[0] ?? '';
    const documented = new Set<string>();
    for (const line of section.split('\n')) {
      const cells = line.split('|').map((c) => c.trim());
      if (cells.length < 4 || !cells[1]?.startsWith('`')) continue;
      const names = (cell: string) => [...cell.matchAll(/`([a-z]+)`/g)].map((m) => m[1]!);
      for (const from of names(cells[1])) for (const to of names(cells[2]!)) documented.add(`${from} -> ${to}`);
    }
    const inCode = new Set(STATUSES.flatMap((from) => TRANSITIONS[from].map((to) => `${from} -> ${to}`)));
    expect([...documented].sort()).toEqual([...inCode].sort());
    // The final states the doc names have no way out.
    for (const s of ['failed', 'expired', 'canceled', 'refunded', 'voided'] as const) expect(TRANSITIONS[s]).toEqual([]);
  });
});
