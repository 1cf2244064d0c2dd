import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { AccountsService, type Account } from '../../src/accounts/accounts.js';
import { TransferAuthorization } from '../../src/chain/authorization.js';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import { PaymentsService } from '../../src/payments/payments.js';
import { CreatePaymentInput } from '../../src/payments/payment-schemas.js';
import { SettlementService, type SettleResult } from '../../src/settlement/settlement.js';
import { LowdbStore } from '../../src/store/index.js';
import { CheckoutSessions } from '../../src/checkout-sessions/checkout-sessions.js';
import { PaymentMethods, type PayContext, type PaymentMethod, type PayRails } from '../../src/checkout-sessions/pay.js';
import { PAYMENT_METHODS } from '../../src/checkout-sessions/methods/payment-methods.js';
import { appWallet } from '../../src/checkout-sessions/methods/app-wallet.js';
import { testWallet } from '../../src/checkout-sessions/methods/test-wallet.js';
import { x402 } from '../../src/checkout-sessions/methods/x402.js';
import { custodialKey, FakeChain } from '../helpers/fake-chain.js';

// Unit layer of `pay` (src/checkout-sessions/pay.ts): the method registry, a new method added in
// a temporary registry, and each adapter's refusals, over the in-memory store and the fake chain.

/** The fake chain with the two calls only the service's own signers use. */
class PayChain extends FakeChain {
  faucetDown = false;
  async signAsCustodial(index: number, auth: TransferAuthorization): Promise<Hex> {
    return privateKeyToAccount(custodialKey(index)).signTypedData(this.transferWithAuthorizationTypedData(auth).typedData);
  }
  async faucet(address: Address, amount: bigint) {
    if (this.faucetDown) return { ok: false as const, reason: 'not_available' as never, message: 'no faucet here' };
    this.fund(address, amount);
    return { ok: true as const, mintTxHash: `0x${'11'.repeat(32)}` as Hex };
  }
}

async function world(methods?: PaymentMethods) {
  const store = LowdbStore.inMemory();
  const chain = new PayChain();
  const fx = new FxService(loadFxTable());
  const accounts = new AccountsService(store, {});
  const payments = new PaymentsService(store, fx, 'http://localhost:3000');
  const settlement = new SettlementService({ store, payments, accounts, chain, logger: pino({ level: 'silent' }), confirmTimeoutMs: 50, reconcileWaitMs: 10 });
  const rails: PayRails = { store, chain, settlement, x402Port: { chainId: chain.chainId, tokenAddress: chain.tokenAddress, eip712Domain: chain.domain } };
  const sessions = new CheckoutSessions({
    payments,
    accounts,
    settlement: { recipientFor: (p) => settlement.recipientFor(p), deposits: { depositFor: async () => undefined } },
    refunds: { ofPayment: async () => [] },
    chainOf: () => ({ network: { chainId: chain.chainId, name: 'Fake' } as never, tokenAddress: chain.tokenAddress }),
    tokenSymbol: 'USDC',
    rails: () => rails,
    ...(methods ? { methods } : {}),
  });
  const merchant = await account(accounts, 'Acme Books');
  const newPayment = async (extra: Record<string, unknown> = {}) => {
    const r = await payments.create(merchant.id, CreatePaymentInput.parse({ amount: 12.5, currency: 'USD', redirect_url: 'https://shop.example/done', ...extra }));
    if (!r.ok) throw new Error(r.message);
    return r.payment;
  };
  const ctx = async (id: string): Promise<PayContext> => ({ ...rails, payment: (await payments.get(id))! });
  return { store, chain, accounts, payments, settlement, sessions, rails, merchant, newPayment, ctx };
}

async function account(accounts: AccountsService, name: string): Promise<Account> {
  const created = await accounts.create({ name, email: `${name.replace(/\W/g, '').toLowerCase()}@example.com` });
  if (!created.ok) throw new Error(created.message);
  return created.account;
}

describe('pay(id, input): one adapter per way to pay', () => {
  it('a method added in a temporary registry pays a real session: its authorization is settled once, and it hears the outcome', async () => {
    const customer = privateKeyToAccount(generatePrivateKey());
    const heard: SettleResult[] = [];
    // A new way to pay: one object (in src/ one file) that turns its input into one authorization.
    const voucher: PaymentMethod<{ method: 'voucher'; code: string }, 'unknown_voucher'> = {
      name: 'voucher',
      async authorize({ payment, settlement, chain }, { code }) {
        if (code !== 'GIFT') return { ok: false, reason: 'unknown_voucher', message: 'No such voucher.' };
        const issued = await settlement.authorizationFor(payment.id, customer.address);
        if (!issued.ok) return issued;
        const authorization = TransferAuthorization.parse(issued.typedData.message);
        const signature = await customer.signTypedData(chain.transferWithAuthorizationTypedData(authorization).typedData);
        return { ok: true, request: { authorization, signature }, after: async (r) => void (r && heard.push(r)) };
      },
    };
    const w = await world(new PaymentMethods([...PAYMENT_METHODS, voucher]));
    w.chain.fund(customer.address, 100_000_000n);
    const p = await w.newPayment();

    const refused = await w.sessions.pay(p.id, { method: 'voucher', code: 'NOPE' } as never);
    expect(refused).toMatchObject({ ok: false, reason: 'unknown_voucher' });
    expect(w.chain.sent).toHaveLength(0);

    const paid = await w.sessions.pay(p.id, { method: 'voucher', code: 'GIFT' } as never);
    expect(paid.ok && paid.payment.status).toBe('settled');
    expect(await w.payments.get(p.id)).toMatchObject({ status: 'settled', payer: customer.address, txHash: w.chain.sent[0] });
    expect(w.chain.sent).toHaveLength(1);
    expect(heard.map((r) => r.ok)).toEqual([true]);
  });

  it('a name nobody registered, and a session that does not exist, are refused by name', async () => {
    const w = await world();
    const p = await w.newPayment();
    expect(await w.sessions.pay(p.id, { method: 'voucher' } as never)).toMatchObject({ ok: false, reason: 'unknown_method' });
    expect(await w.sessions.pay('pay_nope', { method: 'test-wallet' })).toMatchObject({ ok: false, reason: 'not_found' });
    expect(() => new PaymentMethods([...PAYMENT_METHODS, testWallet])).toThrow(/registered twice/);
  });

  it('signed authorization: the issued one settles; an altered one is refused by settlement (issued terms)', async () => {
    const w = await world();
    const p = await w.newPayment();
    const customer = privateKeyToAccount(generatePrivateKey());
    w.chain.fund(customer.address, 100_000_000n);
    const issued = await w.settlement.authorizationFor(p.id, customer.address);
    if (!issued.ok) throw new Error(issued.message);
    const authorization = TransferAuthorization.parse(issued.typedData.message);
    const sign = (a: TransferAuthorization) => customer.signTypedData(w.chain.transferWithAuthorizationTypedData(a).typedData);
    const ownNonce = { ...authorization, nonce: `0x${'ab'.repeat(32)}` as Hex };
    expect(await w.sessions.pay(p.id, { method: 'signed-authorization', authorization: ownNonce, signature: await sign(ownNonce) })).toMatchObject({ ok: false, reason: 'wrong_nonce' });
    const r = await w.sessions.pay(p.id, { method: 'signed-authorization', authorization, signature: await sign(authorization) });
    expect(r.ok && r.payment.status).toBe('settled');
  });

  it('app wallet: refuses its own payment, an empty wallet and a second click, and releases the hold when nothing moved', async () => {
    const w = await world();
    const payer = await account(w.accounts, 'Pat Payer');
    const payerWallet = w.chain.custodialAddress(payer.walletIndex);
    // Paid out to the payer's own wallet: nothing would move.
    const own = await w.newPayment({ payout_address: payerWallet });
    expect(await appWallet.authorize(await w.ctx(own.id), { method: 'app-wallet', payer })).toMatchObject({ ok: false, reason: 'own_payment' });

    const p = await w.newPayment();
    expect(await w.sessions.pay(p.id, { method: 'app-wallet', payer })).toMatchObject({ ok: false, reason: 'insufficient_balance' });
    expect(w.chain.sent).toHaveLength(0);

    w.chain.fund(payerWallet, 100_000_000n);
    const first = await appWallet.authorize(await w.ctx(p.id), { method: 'app-wallet', payer });
    expect(first.ok).toBe(true);
    // While the first is being settled, a second click from the same payer is refused.
    expect(await appWallet.authorize(await w.ctx(p.id), { method: 'app-wallet', payer })).toMatchObject({ ok: false, reason: 'processing' });
    if (!first.ok) return;
    // Settlement refused it (say the session was paid elsewhere): the hold is released, the flight ends.
    await first.after?.({ ok: false, reason: 'already_settled', message: 'paid' });
    const again = await w.sessions.pay(p.id, { method: 'app-wallet', payer });
    expect(again.ok && again.payment.status).toBe('settled');
    expect(w.chain.balance(payerWallet)).toBe(100_000_000n - 12_500_000n);
  });

  it('test wallet: a faucet that fails is refused as submit_failed; with a faucet it settles', async () => {
    const w = await world();
    const p = await w.newPayment();
    w.chain.faucetDown = true;
    expect(await w.sessions.pay(p.id, { method: 'test-wallet' })).toMatchObject({ ok: false, reason: 'submit_failed' });
    w.chain.faucetDown = false;
    const r = await w.sessions.pay(p.id, { method: 'test-wallet' });
    expect(r.ok && r.payment.status).toBe('settled');
  });

  it('x402: no requirements (closing too soon), a payload that does not pay them, and a malformed one after the session ended', async () => {
    const w = await world();
    const p = await w.newPayment();
    const payload = { x402Version: 2, accepted: { scheme: 'exact', network: 'eip155:31337' }, payload: { nope: true } } as never;
    expect(await x402.authorize(await w.ctx(p.id), { method: 'x402', payload })).toMatchObject({ ok: false, reason: 'expired' });
    const requirements = { scheme: 'exact', network: 'eip155:1', asset: w.chain.tokenAddress, amount: '12500000', payTo: w.chain.custodialAddress(w.merchant.walletIndex), maxTimeoutSeconds: 60 } as never;
    expect(await x402.authorize(await w.ctx(p.id), { method: 'x402', payload, requirements })).toMatchObject({ ok: false, reason: 'payment_required' });
    expect(await x402.authorize(await w.ctx(p.id), { method: 'x402', payload, checkedBy: 'mpp' })).toMatchObject({ ok: false, reason: 'payment_required', message: 'invalid_payload' });
    const ended = { ...(await w.ctx(p.id)), payment: { ...(await w.payments.get(p.id))!, status: 'canceled' as const } };
    expect(await x402.authorize(ended, { method: 'x402', payload })).toMatchObject({ ok: false, reason: 'canceled' });
  });

  it('x402: the payer-chosen nonce and a shorter window are accepted by its terms, the issued nonce is not required', async () => {
    const w = await world();
    const p = await w.newPayment();
    const agent = privateKeyToAccount(generatePrivateKey());
    w.chain.fund(agent.address, 100_000_000n);
    const issued = await w.settlement.authorizationFor(p.id, agent.address);
    if (!issued.ok) throw new Error(issued.message);
    const base = TransferAuthorization.parse(issued.typedData.message);
    const authorization = { ...base, nonce: `0x${'cd'.repeat(32)}` as Hex, validBefore: base.validBefore - 60n };
    const signature = await agent.signTypedData(w.chain.transferWithAuthorizationTypedData(authorization).typedData);
    const payload = { x402Version: 2, accepted: {}, payload: { authorization: { ...authorization, value: String(authorization.value), validAfter: '0', validBefore: String(authorization.validBefore) }, signature } } as never;
    const r = await w.sessions.pay(p.id, { method: 'x402', payload, checkedBy: 'mpp' });
    expect(r.ok && r.payment.status).toBe('settled');
    expect((await w.payments.get(p.id))?.authNonce?.toLowerCase()).toBe(authorization.nonce);
  });
});
