import { describe, expect, it } from 'vitest';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import { PaymentsService } from '../../src/payments/payments.js';
import { CreatePaymentInput } from '../../src/payments/payment-schemas.js';
import { defineTable, LowdbStore } from '../../src/store/index.js';

// PaymentsService.create answers {payment, created, replayed} (issue 12 item 3): what happened,
// not an HTTP status; the payments router maps it (201 created, 200 found).
const ACCOUNT = 'acct_create0000000000000000';
const input = (extra: Record<string, unknown> = {}) =>
  CreatePaymentInput.parse({ amount: 25, currency: 'USD', redirect_url: 'https://shop.example/done', ...extra });

function service() {
  const store = LowdbStore.inMemory();
  return { store, payments: new PaymentsService(store, new FxService(loadFxTable()), 'http://localhost:3000') };
}

describe('PaymentsService.create', () => {
  it('a new payment is created; the same reference and body again finds it', async () => {
    const { payments } = service();
    const first = await payments.create(ACCOUNT, input({ reference: 'order-1' }));
    expect(first).toMatchObject({ ok: true, created: true, replayed: false });
    const again = await payments.create(ACCOUNT, input({ reference: 'order-1' }));
    expect(again).toMatchObject({ ok: true, created: false, replayed: false });
    if (first.ok && again.ok) expect(again.payment.id).toBe(first.payment.id);
  });

  it('an Idempotency-Key replays the first answer, created or found', async () => {
    const { payments } = service();
    const made = await payments.create(ACCOUNT, input(), 'key-1');
    expect(await payments.create(ACCOUNT, input(), 'key-1')).toMatchObject({ ok: true, created: true, replayed: true });
    await payments.create(ACCOUNT, input({ reference: 'order-2' }));
    expect(await payments.create(ACCOUNT, input({ reference: 'order-2' }), 'key-2')).toMatchObject({ ok: true, created: false, replayed: false });
    expect(await payments.create(ACCOUNT, input({ reference: 'order-2' }), 'key-2')).toMatchObject({ ok: true, created: false, replayed: true });
    expect(made.ok).toBe(true);
  });

  it('an idempotency record written before `created` existed replays from its stored status', async () => {
    const { store, payments } = service();
    // The table as earlier versions wrote it: the first answer's HTTP status, no `created`.
    const Keys = defineTable<{ id: string; paymentId: string; created?: boolean; status?: number }>({ name: 'idempotency_keys' });
    for (const [key, status, created] of [['old-201', 201, true], ['old-200', 200, false]] as const) {
      const first = await payments.create(ACCOUNT, input(), key);
      if (!first.ok) throw new Error(first.message);
      const row = (await store.table(Keys).findOne({ paymentId: first.payment.id }))!;
      await store.write(Keys, (t) => t.update(row.id, { created: undefined, status }));
      expect(await payments.create(ACCOUNT, input(), key)).toMatchObject({ ok: true, created, replayed: true });
    }
  });
});
