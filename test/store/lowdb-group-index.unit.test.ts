import { describe, expect, it } from 'vitest';
import { TableState } from '../../src/store/lowdb-table-state.js';
import { Payments, type Payment } from '../../src/payments/payments.js';
import { WebhookEvents } from '../../src/webhooks/outbox.js';

/**
 * PostgreSQL needs no (accountId, seq) index on payments or webhook events (migration 0019):
 * their reads name the mode too. The embedded store's per-field sets come from the same
 * TableDef, so a group's first field keeps its set there (a merchant's list is not a scan).
 */
describe('embedded store: a group index gives its first field a per-field set', () => {
  it('payments and webhook events keep their accountId sets', () => {
    expect([...new TableState(Payments, [], () => {}).indexes.keys()].sort()).toEqual(['accountId', 'status']);
    expect([...new TableState(WebhookEvents, [], () => {}).indexes.keys()].sort()).toEqual(['accountId', 'paymentId']);
  });

  it("finds a merchant's rows through it", () => {
    const rows = Array.from({ length: 40 }, (_, i) => ({ id: `pay_${i}`, accountId: i % 10 === 0 ? 'acct_a' : 'acct_b', livemode: true }) as unknown as Payment);
    const s = new TableState(Payments, rows, () => {});
    expect(s.indexes.get('accountId')!.get('acct_a')!.size).toBe(4);
    expect(s.find({ accountId: 'acct_a', livemode: true } as Partial<Payment>, { order: 'desc' }).map((r) => r.id)).toEqual(['pay_30', 'pay_20', 'pay_10', 'pay_0']);
  });
});
