/** Issue 22 point 5: the name a payment shows its payer, decided in one place. */
import { describe, expect, it } from 'vitest';
import { merchantNameFor, merchantNameOf } from '../../src/payments/merchant-name.js';

describe('merchantNameFor / merchantNameOf', () => {
  it('the payment’s own name, else the account’s, else "Merchant"', () => {
    expect(merchantNameFor({ merchantName: 'Kiosk 7' }, { name: 'Amina' })).toBe('Kiosk 7');
    expect(merchantNameFor({}, { name: 'Amina' })).toBe('Amina');
    expect(merchantNameFor({}, undefined)).toBe('Merchant');
  });

  it('reads the account only when the payment carries no name', async () => {
    const read: string[] = [];
    const accounts = { get: async (id: string) => (read.push(id), id === 'acct_a' ? { name: 'Amina' } : undefined) };
    expect(await merchantNameOf({ merchantName: 'Kiosk 7', accountId: 'acct_a' }, accounts)).toBe('Kiosk 7');
    expect(read).toEqual([]);
    expect(await merchantNameOf({ accountId: 'acct_a' }, accounts)).toBe('Amina');
    expect(await merchantNameOf({ accountId: 'acct_gone' }, accounts)).toBe('Merchant');
    expect(read).toEqual(['acct_a', 'acct_gone']);
  });
});
