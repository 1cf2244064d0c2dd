import { describe, expect, it } from 'vitest';
import type { Account } from '../../src/accounts/accounts.js';
import { SettledNotices } from '../../src/transfers/transfer-notices.js';
import type { Transfer } from '../../src/transfers/transfer-row.js';
import type { TransferSettledEvent } from '../../src/transfers/transfer-types.js';

/**
 * Test mode's transfers tell nobody (h15tour, docs/test-mode.md): a test key's settled transfer is
 * neither sent to a listener (the Telegram bridge) nor kept for the first one, and waits on no
 * flush; a live one is, as before. Before, the start-up pass of test mode's service kept notices
 * no listener ever took, and a test transfer on the shared embedded chain reached a real chat.
 */
const sender = { id: 'acct_sender', name: 'Sara' } as Account;
const row = (id: string, livemode?: false) =>
  ({ id, recipientAccountId: 'acct_rec', recipientAmount: '1', recipientCurrency: 'USD', recipientAmountMinor: '100', stablecoinAmount: '1000000', ...(livemode === false ? { livemode } : {}) }) as unknown as Transfer;

function notices() {
  let syncs = 0;
  const n = new SettledNotices({
    recipientOf: async () => ({ id: 'acct_rec', name: 'Kofi' }) as Account,
    amountText: () => '1.00 USD',
    sync: async () => void syncs++,
  });
  /** Listens; resolves with the ids heard once `last` is heard (notices are sent in order). */
  const listen = (last: string) =>
    new Promise<string[]>((resolve) => {
      const heard: string[] = [];
      n.subscribe((e: TransferSettledEvent) => {
        heard.push(e.transfer.id);
        if (e.transfer.id === last) resolve(heard);
      });
    });
  return { n, listen, syncs: () => syncs };
}

describe('settled-transfer notices: live transfers only', () => {
  it('the start-up pass keeps a live notice for the first listener, never a test one', async () => {
    const { n, listen } = notices();
    n.now(row('tr_test', false), sender, true);
    n.now(row('tr_live'), sender, true);
    expect(await listen('tr_live')).toEqual(['tr_live']);
  });

  it('with a listener: a test transfer is not sent, a live one is; a deferred test outcome waits on no flush', async () => {
    const { n, listen, syncs } = notices();
    const heard = listen('tr_live2');
    n.now(row('tr_test1', false), sender);
    n.whenDurable(row('tr_test2', false), sender);
    expect(syncs()).toBe(0);
    n.now(row('tr_live1'), sender);
    n.whenDurable(row('tr_live2'), sender);
    expect(syncs()).toBe(1);
    expect(await heard).toEqual(['tr_live1', 'tr_live2']);
  });
});
