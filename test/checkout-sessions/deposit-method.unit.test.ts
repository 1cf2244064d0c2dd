import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { getAddress, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { AccountsService } from '../../src/accounts/accounts.js';
import { CheckoutSessions } from '../../src/checkout-sessions/checkout-sessions.js';
import type { PayRails } from '../../src/checkout-sessions/pay.js';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import { Payments, PaymentsService } from '../../src/payments/payments.js';
import { CreatePaymentInput } from '../../src/payments/payment-schemas.js';
import { DEPOSIT_SWEEP_TERMS } from '../../src/settlement/deposit-sweep.js';
import { Deposits } from '../../src/settlement/deposit-records.js';
import { depositWatcherFor } from '../../src/settlement/deposit-watcher-for.js';
import { SettlementService } from '../../src/settlement/settlement.js';
import { LowdbStore } from '../../src/store/index.js';
import { FakeChain } from '../helpers/fake-chain.js';

// The deposit address as a payment method (issue 22, step 1; methods/deposit-address.ts): the
// watcher hands a deposit over to `CheckoutSessions.pay(id, { method: 'deposit-address', deposit })`,
// which sweeps it once or refuses by name; over the in-memory store and the fake chain.

async function world() {
  const store = LowdbStore.inMemory();
  const chain = new FakeChain();
  const fx = new FxService(loadFxTable());
  const accounts = new AccountsService(store, {});
  const payments = new PaymentsService(store, fx, 'http://localhost:3000');
  const logger = pino({ level: 'silent' });
  const settlement = new SettlementService({ store, payments, accounts, chain, logger, confirmTimeoutMs: 50, reconcileWaitMs: 10 });
  const deposits = depositWatcherFor(settlement, { store, payments, chain, logger });
  const rails = { store, chain, settlement, x402Port: chain } as unknown as PayRails;
  const sessions = new CheckoutSessions({
    payments,
    accounts,
    settlement: { recipientFor: (p) => settlement.recipientFor(p), deposits },
    refunds: { ofPayment: async () => [] },
    chainOf: () => ({ network: { chainId: chain.chainId, name: 'Fake' } as never, tokenAddress: chain.tokenAddress }),
    tokenSymbol: 'USDC',
    rails: () => rails,
  });
  // As src/core/build.ts wires it: the watcher pays through the registered method.
  const handed: string[] = [];
  deposits.handOver(async (p, input) => {
    handed.push(input.method);
    return sessions.pay(p.id, input);
  });
  const created = await accounts.create({ name: 'Acme Books', email: 'acme@example.com' });
  if (!created.ok) throw new Error(created.message);
  const shop = chain.custodialAddress(created.account.walletIndex);
  const newSession = async () => {
    const r = await payments.create(created.account.id, CreatePaymentInput.parse({ amount: 12.5, currency: 'USD', redirect_url: 'https://shop.example/done' }));
    if (!r.ok) throw new Error(r.message);
    const d = await deposits.depositFor(r.payment);
    return { id: r.payment.id, address: d!.address };
  };
  const phone = (amount: bigint): Address => {
    const a = privateKeyToAccount(generatePrivateKey()).address;
    chain.fund(a, amount);
    return a;
  };
  /** Credits what arrived (a pass with no payable session does only that). */
  const deposit = async (id: string) => (await store.table(Deposits).get(id))!;
  return { store, chain, payments, settlement, deposits, sessions, handed, shop, newSession, phone, deposit };
}

describe('the deposit address is a payment method', () => {
  it('the watcher hands a full deposit to pay(id, deposit-address): swept once to pay_to, the session settled', async () => {
    const w = await world();
    const s = await w.newSession();
    const from = w.phone(12_500_000n);
    w.chain.transfer(from, s.address, 12_500_000n);
    await w.deposits.pass();
    expect(w.handed).toEqual(['deposit-address']);
    expect(await w.payments.get(s.id)).toMatchObject({ status: 'settled', payer: from, viaDeposit: true, txHash: w.chain.sent[0] });
    expect(w.chain.balance(w.shop)).toBe(12_500_000n);
    // Paid: the same deposit again is refused by name and nothing more is sent.
    expect(await w.sessions.pay(s.id, { method: 'deposit-address', deposit: await w.deposit(s.id) })).toMatchObject({ ok: false, reason: 'processing' });
    expect(w.chain.sent).toHaveLength(1);
  });

  it('refuses by name: under-paid, a signed attempt still open, a canceled session; nothing is sent', async () => {
    const w = await world();
    const s = await w.newSession();
    w.chain.transfer(w.phone(5_000_000n), s.address, 5_000_000n);
    await w.deposits.pass(); // credits it; the method refuses the under-payment
    expect(w.handed).toEqual(['deposit-address']);
    expect(await w.sessions.pay(s.id, { method: 'deposit-address', deposit: await w.deposit(s.id) })).toMatchObject({ ok: false, reason: 'deposit_underpaid' });

    w.chain.transfer(w.phone(7_500_000n), s.address, 7_500_000n);
    await w.store.write(Payments, (t) => t.update(s.id, { attemptedBy: ['0x00000000000000000000000000000000000000aa'] }));
    await w.deposits.pass();
    expect(await w.sessions.pay(s.id, { method: 'deposit-address', deposit: await w.deposit(s.id) })).toMatchObject({ ok: false, reason: 'deposit_attempt_open' });

    await w.store.write(Payments, (t) => t.update(s.id, { attemptedBy: undefined, status: 'canceled' }));
    expect(await w.sessions.pay(s.id, { method: 'deposit-address', deposit: await w.deposit(s.id) })).toMatchObject({ ok: false, reason: 'canceled' });
    expect(w.chain.sent).toHaveLength(0);
  });

  it('settlement checks the sweep by its terms: a sweep to anyone but pay_to is refused, nothing moves', async () => {
    const w = await world();
    const s = await w.newSession();
    w.chain.transfer(w.phone(12_500_000n), s.address, 12_500_000n);
    const d = await w.deposits.get(s.id);
    const thief = getAddress('0x000000000000000000000000000000000000bad0');
    const nonce = w.chain.nonceFor('deposit-sweep', s.id);
    const signed = await w.chain.signDepositAuthorization({ fromIndex: d!.index, to: thief, value: 12_500_000n, nonce });
    if (!signed.ok) throw new Error('the deposit key did not sign');
    const r = await w.settlement.settle(s.id, { authorization: signed.auth, signature: signed.signature as Hex }, DEPOSIT_SWEEP_TERMS);
    expect(r).toMatchObject({ ok: false, reason: 'wrong_recipient' });
    expect(w.chain.sent).toHaveLength(0);
    expect((await w.payments.get(s.id))?.status).toBe('pending');
  });
});
