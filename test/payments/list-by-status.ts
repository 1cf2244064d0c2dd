import { expect, it } from 'vitest';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import { Payments, PaymentsService, type Payment } from '../../src/payments/payments.js';
import type { ListPaymentsQuery } from '../../src/payments/payment-schemas.js';
import type { Store } from '../../src/store/types.js';
import { countingStore } from './due-passes.js';

/**
 * GET /v1/payments?status=pending|expired pages in the store (issue 23): the same pages as the
 * list that read every row of the status (for `expired`, every payment of the merchant) and
 * filtered after, with a bound on the rows a page reads. Shared by the lowdb and PostgreSQL files.
 */

const ACCOUNT = 'acct_list';
export const HISTORY = 600;

function payment(i: number, over: Partial<Payment>): Payment {
  const t = new Date(Date.now() - 3_600_000).toISOString();
  return {
    id: `pay_list_${String(i).padStart(5, '0')}`,
    accountId: ACCOUNT,
    livemode: true,
    status: 'settled',
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
  } as Payment;
}

/**
 * A settled history with, interleaved: stored `expired` (every 7th), open `pending` (every
 * 31st), `pending` past its expiry not yet swept (every 13th: reads `expired`), the same with a
 * settle attempt (every 17th: still reads `pending`), and rows of another merchant and of test mode.
 */
export async function seed(store: Store): Promise<void> {
  const past = new Date(Date.now() - 1_000).toISOString();
  await store.write(Payments, async (t) => {
    for (let i = 0; i < HISTORY; i++) {
      const over: Partial<Payment> =
        i % 7 === 0 ? { status: 'expired' }
        : i % 31 === 0 ? { status: 'pending' }
        : i % 13 === 0 ? { status: 'pending', expiresAt: past }
        : i % 17 === 0 ? { status: 'pending', expiresAt: past, attemptedBy: ['0x0000000000000000000000000000000000000001'] }
        : i % 19 === 0 ? { accountId: 'acct_other', status: 'expired' }
        : i % 23 === 0 ? { livemode: false, status: 'pending', expiresAt: past }
        : {};
      await t.insert(payment(i, over));
    }
  });
}

/** The list as it was before: every row of the stored status (none for `expired`), filtered, then paged. */
async function listBefore(svc: PaymentsService, store: Store, q: ListPaymentsQuery): Promise<{ data: string[]; hasMore: boolean }> {
  const effective = q.status === 'pending' || q.status === 'expired';
  const where = { accountId: ACCOUNT, livemode: true, ...(q.status && q.status !== 'expired' ? { status: q.status } : {}) };
  const rows = await store.table(Payments).findMany(where, { order: 'desc', after: q.starting_after, limit: effective ? undefined : q.limit + 1 });
  const now = Date.now();
  const matching = effective ? rows.filter((p) => svc.effectiveStatus(p, now) === q.status) : rows;
  return { data: matching.slice(0, q.limit).map((p) => p.id), hasMore: matching.length > q.limit };
}

export function listByStatusTests(open: () => Promise<Store>, statements?: { reset(): void; count(): number }): void {
  it('pending and expired lists give the pages the full read gave, reading about a page each', { timeout: 120_000 }, async () => {
    const inner = await open();
    try {
      await seed(inner);
      const { store, read, reset } = countingStore(inner);
      const svc = new PaymentsService(store, new FxService(loadFxTable()), 'http://localhost');
      for (const status of ['pending', 'expired', 'settled', undefined] as const) {
        for (const limit of [1, 4, 25]) {
          let after: string | undefined;
          let pages = 0;
          for (;;) {
            const q = { limit, status, starting_after: after } as ListPaymentsQuery;
            const want = await listBefore(svc, inner, q);
            const got = await svc.list(ACCOUNT, q);
            if (!got.ok) throw new Error(got.message);
            expect({ data: got.data.map((p) => p.id), hasMore: got.hasMore }, `${status} limit ${limit} page ${pages}`).toEqual(want);
            if (status) for (const p of got.data) expect(p.status).toBe(status);
            pages++;
            if (!got.hasMore) break;
            after = got.data[got.data.length - 1]!.id;
          }
          expect(pages).toBeGreaterThan(1);
        }
      }

      // One page of 10: the rows read are the page's 11 and the stored pending rows that do not
      // read as asked among them (the full read took 600 rows for `expired`, 91 for `pending`).
      for (const status of ['expired', 'pending'] as const) {
        reset();
        statements?.reset();
        const page = await svc.list(ACCOUNT, { limit: 10, status } as ListPaymentsQuery);
        expect(page.ok && page.data.length).toBe(10);
        expect(read(), status).toBeLessThanOrEqual(30);
        if (statements) expect(statements.count(), status).toBeLessThanOrEqual(2);
      }
      // Half way down the history, the same.
      const mid = `pay_list_${String(HISTORY / 2).padStart(5, '0')}`;
      reset();
      const later = await svc.list(ACCOUNT, { limit: 10, status: 'expired', starting_after: mid } as ListPaymentsQuery);
      expect(later.ok && later.data.length).toBe(10);
      expect(read()).toBeLessThanOrEqual(31); // the cursor's own row, then as above
    } finally {
      await inner.close();
    }
  });
}
