import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { AccountsService } from '../../src/accounts/accounts.js';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import { LowdbStore } from '../../src/store/index.js';
import { TransfersService } from '../../src/transfers/transfers.js';
import { WalletDirectory } from '../../src/wallet/directory.js';
import { FakeChain } from '../helpers/fake-chain.js';

// Unit layer: a custodial transfer (quote, confirm, one on-chain move, fee, reconcile) over the
// in-memory store and the fake chain port. transfers.e2e.test.ts runs the same story on anvil.

async function world() {
  const store = LowdbStore.inMemory();
  const chain = new FakeChain();
  const fx = new FxService(loadFxTable());
  const accounts = new AccountsService(store, {});
  const wallets = new WalletDirectory(chain, store);
  const transfers = new TransfersService(store, chain, fx, accounts, wallets, { logger: pino({ level: 'silent' }), confirmTimeoutMs: 20 });
  const make = async (name: string, email: string) => {
    const r = await accounts.create({ name, email, localCurrency: 'USD' });
    if (!r.ok) throw new Error(r.message);
    return r.account;
  };
  const sender = await make('Amina', 'amina@example.com');
  const recipient = await make('Zawadi', 'zawadi@example.com');
  const from = wallets.addressOf(sender);
  const to = wallets.addressOf(recipient);
  return { chain, transfers, sender, recipient, from, to };
}

describe('TransfersService over the fake chain port', () => {
  it('moves the principal to the recipient and the fee to the fee wallet, once', async () => {
    const w = await world();
    w.chain.fund(w.from, 100_000_000n);
    const r = await w.transfers.send(w.sender.id, { recipient: 'zawadi@example.com', amount: '25', currency: 'USD' });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    if (!r.ok) return;
    expect(r.transfer).toMatchObject({ status: 'settled', txHash: w.chain.sent[0], recipientAccountId: w.recipient.id });
    // One on-chain move carries the principal and the fee (issue 23, point 3).
    expect(w.chain.sent).toHaveLength(1);
    expect(r.transfer).toMatchObject({ feeStatus: 'settled', feeTxHash: w.chain.sent[0] });
    expect(w.chain.balance(w.to)).toBe(25_000_000n);
    const fee = BigInt(r.transfer.fee);
    expect(w.chain.balance(w.transfers.feeWalletAddress)).toBe(fee);
    expect(w.chain.balance(w.from)).toBe(100_000_000n - 25_000_000n - fee);
    // Confirming the same quote again moves nothing.
    const again = await w.transfers.confirm(w.sender.id, r.transfer.id);
    expect(again).toMatchObject({ ok: false, reason: 'invalid_state' });
    expect(w.chain.balance(w.to)).toBe(25_000_000n);
  });

  it('a token without batched authorizations (USDC): the fee follows the principal as a second move', async () => {
    const w = await world();
    w.chain.batchTransfers = false;
    w.chain.fund(w.from, 100_000_000n);
    const r = await w.transfers.send(w.sender.id, { recipient: 'zawadi@example.com', amount: '25', currency: 'USD' });
    if (!r.ok) throw new Error(r.message);
    expect(w.chain.sent).toHaveLength(2);
    expect(r.transfer).toMatchObject({ status: 'settled', txHash: w.chain.sent[0], feeStatus: 'settled', feeTxHash: w.chain.sent[1] });
    const fee = BigInt(r.transfer.fee);
    expect(w.chain.balance(w.transfers.feeWalletAddress)).toBe(fee);
    expect(w.chain.balance(w.from)).toBe(100_000_000n - 25_000_000n - fee);
  });

  it('a batched move that reverts moves neither the principal nor the fee; the transfer fails cleanly', async () => {
    const w = await world();
    w.chain.fund(w.from, 100_000_000n);
    w.chain.script.push('revert');
    const r = await w.transfers.send(w.sender.id, { recipient: 'zawadi@example.com', amount: '25', currency: 'USD' });
    expect(r).toMatchObject({ ok: false, reason: 'transfer_failed' });
    expect(w.chain.balance(w.to)).toBe(0n);
    expect(w.chain.balance(w.transfers.feeWalletAddress)).toBe(0n);
    const [row] = await w.transfers.history(w.sender.id);
    expect(row).toMatchObject({ status: 'failed', feeStatus: 'none' });
  });

  it('refuses a transfer the wallet cannot cover and sends nothing', async () => {
    const w = await world();
    w.chain.fund(w.from, 1_000_000n);
    const r = await w.transfers.send(w.sender.id, { recipient: 'zawadi@example.com', amount: '25', currency: 'USD' });
    expect(r).toMatchObject({ ok: false, reason: 'insufficient_balance' });
    expect(w.chain.sent).toHaveLength(0);
  });

  it('two concurrent confirms of one quote: one move', async () => {
    const w = await world();
    w.chain.fund(w.from, 100_000_000n);
    const q = await w.transfers.quote(w.sender.id, { recipient: 'zawadi@example.com', amount: '10', currency: 'USD' });
    if (!q.ok) throw new Error(q.message);
    const both = await Promise.all([w.transfers.confirm(w.sender.id, q.transfer.id), w.transfers.confirm(w.sender.id, q.transfer.id)]);
    expect(both.filter((r) => r.ok)).toHaveLength(1);
    expect(w.chain.balance(w.to)).toBe(10_000_000n);
  });

  it('an answer lost after sending stays submitted; reconcile settles it from the chain without a second move', async () => {
    const w = await world();
    w.chain.fund(w.from, 100_000_000n);
    w.chain.script.push('lose-answer', 'no-receipt');
    const r = await w.transfers.send(w.sender.id, { recipient: 'zawadi@example.com', amount: '10', currency: 'USD' });
    const id = r.ok ? r.transfer.id : (await w.transfers.history(w.sender.id))[0]!.id;
    const done = await w.transfers.reconcile(id);
    expect(done.ok && done.transfer.status).toBe('settled');
    expect(done.ok && done.transfer.feeStatus).toBe('settled');
    expect(w.chain.balance(w.to)).toBe(10_000_000n);
    expect(w.chain.balance(w.transfers.feeWalletAddress)).toBe(done.ok ? BigInt(done.transfer.fee) : -1n);
    expect(w.chain.sent).toHaveLength(1);
  });

  it('a quote of someone else cannot be confirmed', async () => {
    const w = await world();
    w.chain.fund(w.from, 100_000_000n);
    const q = await w.transfers.quote(w.sender.id, { recipient: 'zawadi@example.com', amount: '10', currency: 'USD' });
    if (!q.ok) throw new Error(q.message);
    expect(await w.transfers.confirm(w.recipient.id, q.transfer.id)).toMatchObject({ ok: false, reason: 'transfer_not_found' });
    expect(w.chain.sent).toHaveLength(0);
  });
});
