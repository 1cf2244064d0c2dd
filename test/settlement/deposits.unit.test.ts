import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { AccountsService } from '../../src/accounts/accounts.js';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import { Payments, PaymentsService } from '../../src/payments/payments.js';
import { CreatePaymentInput } from '../../src/payments/payment-schemas.js';
import { Deposits } from '../../src/settlement/deposit-watcher.js';
import { SettlementService } from '../../src/settlement/settlement.js';
import { depositWatcherFor } from '../../src/settlement/deposit-watcher-for.js';
import { LowdbStore } from '../../src/store/index.js';
import { FakeChain } from '../helpers/fake-chain.js';

// Unit layer: the deposit watcher's decisions (credit, sweep once, give back, finish after a
// lost answer) over the in-memory store and the fake chain port. Real anvil: deposits.test.ts.

async function world() {
  const store = LowdbStore.inMemory();
  const chain = new FakeChain();
  const fx = new FxService(loadFxTable());
  const accounts = new AccountsService(store, {});
  const payments = new PaymentsService(store, fx, 'http://localhost:3000');
  const settlement = new SettlementService({ store, payments, accounts, chain, logger: pino({ level: 'silent' }), confirmTimeoutMs: 50, reconcileWaitMs: 10 });
  // The watcher beside its settlement, as the composition root builds it (src/core/money-services.ts).
  const watcher = (s: SettlementService) => depositWatcherFor(s, { store, payments, chain, logger: pino({ level: 'silent' }) });
  const deposits = watcher(settlement);
  const created = await accounts.create({ name: 'Acme Books', email: 'acme@example.com' });
  if (!created.ok) throw new Error(created.message);
  const shopWallet = chain.custodialAddress(created.account.walletIndex);
  const newPayment = async () => {
    const r = await payments.create(created.account.id, CreatePaymentInput.parse({ amount: 12.5, currency: 'USD', redirect_url: 'https://shop.example/done' }));
    if (!r.ok) throw new Error(r.message);
    const d = await deposits.depositFor(r.payment);
    if (!d) throw new Error('no deposit address');
    return { payment: r.payment, deposit: d.address };
  };
  const phone = (amount: bigint): Address => {
    const a = privateKeyToAccount(generatePrivateKey()).address;
    chain.fund(a, amount);
    return a;
  };
  // Another instance over the same store and chain (its own per-payment queue, its own pass).
  const other = watcher(new SettlementService({ store, payments, accounts, chain, logger: pino({ level: 'silent' }), confirmTimeoutMs: 50, reconcileWaitMs: 10 }));
  return { store, chain, payments, settlement, deposits, other, shopWallet, newPayment, phone, pass: () => deposits.pass() };
}

describe('DepositWatcher over the fake chain port', () => {
  it('gives each session its own address on its own branch, the same on every read', async () => {
    const w = await world();
    const a = await w.newPayment();
    const b = await w.newPayment();
    expect(a.deposit).not.toBe(b.deposit);
    expect((await w.deposits.depositFor(a.payment))?.address).toBe(a.deposit);
    expect(a.deposit).not.toBe(w.shopWallet);
    expect((await w.deposits.get(a.payment.id))?.index).not.toBe((await w.deposits.get(b.payment.id))?.index);
  });

  it('under-payment waits; the top-up sweeps the whole amount once; more passes send nothing', async () => {
    const w = await world();
    const { payment, deposit } = await w.newPayment();
    const from = w.phone(20_000_000n);
    w.chain.transfer(from, deposit, 5_000_000n);
    await w.pass();
    expect((await w.payments.get(payment.id))?.status).toBe('pending');
    expect(w.chain.sent).toHaveLength(0);
    expect((await w.deposits.depositFor(payment))?.remaining).toBe(7_500_000n);

    w.chain.transfer(from, deposit, 7_500_000n);
    await Promise.all([w.pass(), w.pass(), w.other.pass()]);
    await w.pass();
    expect(await w.payments.get(payment.id)).toMatchObject({ status: 'settled', payer: from, txHash: w.chain.sent[0], viaDeposit: true });
    expect(w.chain.sent).toHaveLength(1);
    expect(w.chain.balance(w.shopWallet)).toBe(12_500_000n);
    expect(w.chain.balance(deposit)).toBe(0n);
  });

  it('over-payment: exactly the amount goes to the merchant, the excess back to the sender who went over, once', async () => {
    const w = await world();
    const { payment, deposit } = await w.newPayment();
    const first = w.phone(10_000_000n);
    const second = w.phone(10_000_000n);
    w.chain.transfer(first, deposit, 10_000_000n);
    w.chain.transfer(second, deposit, 5_000_000n);
    await w.pass();
    await Promise.all([w.pass(), w.other.pass()]);
    expect(await w.payments.get(payment.id)).toMatchObject({ status: 'settled', depositExcess: '2500000' });
    expect(w.chain.balance(w.shopWallet)).toBe(12_500_000n);
    expect(w.chain.balance(second)).toBe(7_500_000n);
    expect(w.chain.balance(first)).toBe(0n);
    expect(w.chain.balance(deposit)).toBe(0n);
    expect(w.chain.sent).toHaveLength(2); // the sweep and one give-back
  });

  it('a sweep whose answer was lost is finished from the chain by the next pass, not sent again', async () => {
    const w = await world();
    const { payment, deposit } = await w.newPayment();
    w.chain.transfer(w.phone(12_500_000n), deposit, 12_500_000n);
    w.chain.script.push('lose-answer');
    await w.pass();
    expect(await w.payments.get(payment.id)).toMatchObject({ status: 'processing', viaDeposit: true });
    // The settlement reconciler leaves a deposit payment alone (it would look for the wrong authorization).
    await w.settlement.reconcile();
    expect((await w.payments.get(payment.id))?.status).toBe('processing');
    await w.pass();
    expect(await w.payments.get(payment.id)).toMatchObject({ status: 'settled', txHash: w.chain.sent[0] });
    expect(w.chain.sent).toHaveLength(1);
  });

  it('a sweep the node refused leaves the session payable and is sent on the next pass', async () => {
    const w = await world();
    const { payment, deposit } = await w.newPayment();
    w.chain.transfer(w.phone(12_500_000n), deposit, 12_500_000n);
    w.chain.script.push('refuse');
    await w.pass();
    expect((await w.payments.get(payment.id))?.status).toBe('pending');
    await w.pass();
    expect((await w.payments.get(payment.id))?.status).toBe('settled');
    expect(w.chain.balance(w.shopWallet)).toBe(12_500_000n);
  });

  it('money for a canceled or expired session goes back to each sender once, retried after a refusal', async () => {
    const w = await world();
    const a = await w.newPayment();
    const b = await w.newPayment();
    await w.payments.transition(a.payment.id, 'pending', 'canceled');
    await w.payments.transition(b.payment.id, 'pending', 'expired');
    const x = w.phone(12_500_000n);
    const y = w.phone(3_000_000n);
    w.chain.transfer(x, a.deposit, 12_500_000n);
    w.chain.transfer(y, b.deposit, 1_000_000n);
    w.chain.transfer(y, b.deposit, 2_000_000n);
    w.chain.script.push('refuse');
    await w.pass();
    await Promise.all([w.pass(), w.other.pass()]);
    await w.pass();
    expect(w.chain.balance(x)).toBe(12_500_000n);
    expect(w.chain.balance(y)).toBe(3_000_000n);
    expect(w.chain.balance(a.deposit)).toBe(0n);
    expect(w.chain.balance(b.deposit)).toBe(0n);
    expect(w.chain.balance(w.shopWallet)).toBe(0n);
    expect(w.chain.sent).toHaveLength(3);
    expect((await w.payments.get(a.payment.id))?.status).toBe('canceled');
  });

  it('a transfer arriving after the sweep is given back; the settlement stands', async () => {
    const w = await world();
    const { payment, deposit } = await w.newPayment();
    const from = w.phone(20_000_000n);
    w.chain.transfer(from, deposit, 12_500_000n);
    await w.pass();
    const settled = await w.payments.get(payment.id);
    w.chain.transfer(from, deposit, 1_000_000n);
    await w.pass();
    expect(w.chain.balance(from)).toBe(20_000_000n - 12_500_000n);
    expect(w.chain.balance(deposit)).toBe(0n);
    expect(await w.payments.get(payment.id)).toMatchObject({ status: 'settled', txHash: settled?.txHash });
  });

  it('stops watching once the grace after the session is over and nothing is left to do', async () => {
    const w = await world();
    const { payment, deposit } = await w.newPayment();
    await w.payments.transition(payment.id, 'pending', 'canceled');
    const x = w.phone(1_000_000n);
    w.chain.transfer(x, deposit, 1_000_000n);
    await w.store.write(Deposits, (t) => t.update(payment.id, { watchUntil: new Date(Date.now() - 1_000).toISOString() }));
    // The refund still goes out before the watch ends; then the address is no longer scanned.
    const first = await w.pass();
    expect(first).toMatchObject({ credited: 1, refunded: 1, closed: 1 });
    expect(w.chain.balance(x)).toBe(1_000_000n);
    expect((await w.deposits.get(payment.id))?.watch).toBe('closed');
    w.chain.transfer(x, deposit, 1_000_000n);
    expect(await w.pass()).toMatchObject({ credited: 0, refunded: 0 });
  });
  it('a transfer in a head block whose logs could not be read yet is found by the next pass (rescan overlap)', async () => {
    const w = await world();
    const { payment, deposit } = await w.newPayment();
    w.chain.transfer(w.phone(12_500_000n), deposit, 12_500_000n);
    // The node names the block as its head but answers its logs only a moment later.
    const real = w.chain.findTransfersTo.bind(w.chain);
    let hidden = true;
    w.chain.findTransfersTo = async (to, fromBlock, toBlock) => (hidden ? (await real(to, fromBlock, toBlock)).filter((l) => l.blockNumber < toBlock) : real(to, fromBlock, toBlock));
    await w.pass();
    expect((await w.payments.get(payment.id))?.status).toBe('pending');
    hidden = false;
    w.chain.transfer(w.phone(1n), w.shopWallet, 1n); // the chain moves on
    await w.pass();
    expect(await w.payments.get(payment.id)).toMatchObject({ status: 'settled', viaDeposit: true });
    expect(w.chain.balance(deposit)).toBe(0n);
  });

  it('once the whole amount arrived the session offers no link to pay again', async () => {
    const w = await world();
    const { payment, deposit } = await w.newPayment();
    expect((await w.deposits.depositFor(payment))?.uri).toContain(`address=${deposit}`);
    // Credited but not swept yet (no pay_to for now): nothing remains to send.
    w.chain.transfer(w.phone(12_500_000n), deposit, 12_500_000n);
    const real = w.chain.signDepositAuthorization.bind(w.chain);
    w.chain.signDepositAuthorization = async () => ({ ok: false as const, reason: 'chain_unavailable', message: 'down' }) as never;
    await w.pass();
    const info = await w.deposits.depositFor((await w.payments.get(payment.id))!);
    expect(info).toMatchObject({ received: 12_500_000n, remaining: 0n });
    expect(info?.uri).toBeUndefined();
    w.chain.signDepositAuthorization = real;
  });

  it('a session with a signed attempt still open takes no sweep: the deposit waits, nothing is charged twice', async () => {
    const w = await world();
    const { payment, deposit } = await w.newPayment();
    // The hosted page relayed the customer's authorization; its outcome is not known yet.
    await w.store.write(Payments, (t) => t.update(payment.id, { attemptedBy: ['0x00000000000000000000000000000000000000aa'] }));
    w.chain.transfer(w.phone(12_500_000n), deposit, 12_500_000n);
    await w.pass();
    await w.pass();
    expect((await w.payments.get(payment.id))?.status).toBe('pending');
    expect(w.chain.sent).toHaveLength(0);
    expect(w.chain.balance(deposit)).toBe(12_500_000n);
  });
  it('sessions opened at once get distinct indexes from the counter, 1..n, each its own address', async () => {
    const w = await world();
    const created = await Promise.all(Array.from({ length: 12 }, () => w.newPayment()));
    const rows = await Promise.all(created.map((c) => w.deposits.get(c.payment.id)));
    expect(rows.map((r) => r!.index).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(new Set(created.map((c) => c.deposit)).size).toBe(12);
  });
});
