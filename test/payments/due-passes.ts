import { expect, it } from 'vitest';
import { pino } from 'pino';
import type { ChainService } from '../../src/chain/chain.js';
import type { AccountsService } from '../../src/accounts/accounts.js';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import type { Logger } from '../../src/lib/logger.js';
import { Payments, PaymentsService, type Payment } from '../../src/payments/payments.js';
import { SettlementService } from '../../src/settlement/settlement.js';
import { Transfers, TransfersService, type Transfer } from '../../src/transfers/transfers.js';
import type { ReadTable, Row, Store, TableDef } from '../../src/store/types.js';

/**
 * The expiry sweeper and the settlement reconciler read only the rows that are due (an index
 * range read), never every pending payment: at a million open sessions a pass that read them
 * all would stall the database. Shared by the lowdb and PostgreSQL files.
 */

/** Wraps a store and counts the rows its readers hand back to the domain code (every table). */
export function countingStore(inner: Store): { store: Store; read: () => number; reset: () => void } {
  let n = 0;
  const counted = <T extends Row>(_def: TableDef<T>, t: ReadTable<T>): ReadTable<T> => {
    const add = <R>(rows: R): R => ((n += Array.isArray(rows) ? rows.length : rows ? 1 : 0), rows);
    return new Proxy(t, {
      get(target, prop, recv) {
        const v = Reflect.get(target, prop, recv) as unknown;
        if (typeof v !== 'function') return v;
        if (!['get', 'findOne', 'findMany', 'findRange'].includes(String(prop))) return v.bind(target);
        return async (...args: unknown[]) => add(await (v as (...a: unknown[]) => Promise<unknown>).apply(target, args));
      },
    });
  };
  const store: Store = new Proxy(inner, {
    get(target, prop, recv) {
      if (prop === 'table') return <T extends Row>(def: TableDef<T>) => counted(def, target.table(def));
      if (prop === 'transaction') {
        return <R>(fn: Parameters<Store['transaction']>[0]) =>
          target.transaction((tx) =>
            fn(new Proxy(tx, { get: (t, p, r) => (p === 'table' ? <T extends Row>(d: TableDef<T>) => counted(d, t.table(d)) : Reflect.get(t, p, r)) })),
          ) as Promise<R>;
      }
      const v = Reflect.get(target, prop, recv) as unknown;
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { store, read: () => n, reset: () => (n = 0) };
}

const quiet = pino({ level: 'silent' }) as Logger;

export const OPEN_SESSIONS = 3_000;

function payment(i: number, over: Partial<Payment>): Payment {
  const t = new Date(Date.now() - 60_000).toISOString();
  return {
    id: `pay_due_${String(i).padStart(6, '0')}`,
    accountId: 'acct_due',
    status: 'pending',
    amount: '1',
    currency: 'USD',
    stablecoinAmount: '1000000',
    rate: '1',
    redirectUrl: 'https://shop.example/done',
    expiresInMinutes: 60,
    createdAt: t,
    updatedAt: t,
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    requestHash: 'x',
    ...over,
  };
}

/** Many open sessions, three due, one due with a settle attempt (the reconciler's, not the sweeper's). */
export async function seed(store: Store): Promise<void> {
  const past = new Date(Date.now() - 1_000).toISOString();
  await store.write(Payments, async (t) => {
    for (let i = 0; i < OPEN_SESSIONS; i++) await t.insert(payment(i, {}));
    for (let i = 0; i < 3; i++) await t.insert(payment(OPEN_SESSIONS + i, { expiresAt: past }));
    await t.insert(payment(OPEN_SESSIONS + 3, { expiresAt: past, attemptedBy: ['0x0000000000000000000000000000000000000001'] }));
  });
}

export function duePassTests(open: () => Promise<Store>): void {
  it('the expiry sweep and the reconcile pass read the due rows, not every pending payment', { timeout: 120_000 }, async () => {
    const inner = await open();
    try {
      await seed(inner);
      const { store, read, reset } = countingStore(inner);
      const payments = new PaymentsService(store, new FxService(loadFxTable()), 'http://localhost');

      reset();
      expect(await payments.sweepExpired()).toBe(3);
      // The due rows (4) and each one's re-read inside its transition: nowhere near the 3,004 pending.
      expect(read()).toBeLessThanOrEqual(20);
      expect(await inner.table(Payments).count({ status: 'expired' })).toBe(3);

      // The reconciler: no processing payment, one pending payment with a settle attempt. The
      // chain is down, so the attempt stays pending; the point is what the pass read.
      const down = () => Promise.reject(new Error('chain down'));
      const chain = new Proxy({}, { get: () => down }) as unknown as ChainService;
      const settlement = new SettlementService({ store, payments, accounts: {} as AccountsService, chain, logger: quiet, reconcileWaitMs: 10 });
      reset();
      const summary = await settlement.reconcile();
      expect(summary.checked).toBe(1);
      expect(read()).toBeLessThanOrEqual(10);
    } finally {
      await inner.close();
    }
  });
}

/** Many settled transfers (the history), one idle `submitted`, one idle with its fee pending, one fresh `submitted`. */
async function seedTransfers(store: Store): Promise<void> {
  const old = new Date(Date.now() - 600_000).toISOString();
  const fresh = new Date().toISOString();
  const t = (i: number, over: Partial<Transfer>) => ({ id: `tr_due_${String(i).padStart(6, '0')}`, accountId: 'acct_due', status: 'settled', feeStatus: 'settled', createdAt: old, updatedAt: old, ...over }) as Transfer;
  await store.write(Transfers, async (tt) => {
    for (let i = 0; i < OPEN_SESSIONS; i++) await tt.insert(t(i, {}));
    await tt.insert(t(OPEN_SESSIONS, { status: 'submitted' }));
    await tt.insert(t(OPEN_SESSIONS + 1, { feeStatus: 'pending' }));
    await tt.insert(t(OPEN_SESSIONS + 2, { status: 'submitted', updatedAt: fresh }));
  });
}

export function transferSweepTests(open: () => Promise<Store>): void {
  it('the money-module sweep reads the idle unfinished transfers, not the settled history', { timeout: 120_000 }, async () => {
    const inner = await open();
    try {
      await seedTransfers(inner);
      const { store, read, reset } = countingStore(inner);
      const transfers = new TransfersService(store, {} as never, new FxService(loadFxTable()), {} as never, {} as never, { logger: quiet as never });
      reset();
      const due = await transfers.unfinished();
      expect(due.map((t) => t.id).sort()).toEqual([`tr_due_${String(OPEN_SESSIONS).padStart(6, '0')}`, `tr_due_${String(OPEN_SESSIONS + 1).padStart(6, '0')}`]);
      expect(read()).toBeLessThanOrEqual(5);
    } finally {
      await inner.close();
    }
  });
}
