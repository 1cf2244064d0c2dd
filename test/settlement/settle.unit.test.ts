import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { AccountsService } from '../../src/accounts/accounts.js';
import { TransferAuthorization } from '../../src/chain/authorization.js';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import { PaymentsService } from '../../src/payments/payments.js';
import { CreatePaymentInput } from '../../src/payments/payment-schemas.js';
import { SettlementService } from '../../src/settlement/settlement.js';
import { LowdbStore } from '../../src/store/index.js';
import { FakeChain } from '../helpers/fake-chain.js';

// Every local signer recovery (viem's recoverTypedDataAddress) is counted, then done as viem does.
const recoveries = vi.hoisted(() => ({ count: 0 }));
vi.mock('viem', async (importOriginal) =>
  (await import('../helpers/counted-recoveries.js')).viemCountingRecoveries(await importOriginal<typeof import('viem')>(), recoveries),
);

// Unit layer: the settlement story (verify, relay once, record, reconcile) over the in-memory
// store and the fake chain port; milliseconds per case. The real-anvil cases are settle*.test.ts.

async function world(Settlement: typeof SettlementService = SettlementService) {
  const store = LowdbStore.inMemory();
  const chain = new FakeChain();
  const fx = new FxService(loadFxTable());
  const accounts = new AccountsService(store, {});
  const payments = new PaymentsService(store, fx, 'http://localhost:3000');
  const settlement = new Settlement({ store, payments, accounts, chain, logger: pino({ level: 'silent' }), confirmTimeoutMs: 50, reconcileWaitMs: 10 });
  const created = await accounts.create({ name: 'Acme Books', email: 'acme@example.com' });
  if (!created.ok) throw new Error(created.message);
  const merchant = created.account;
  const shopWallet = chain.custodialAddress(merchant.walletIndex);
  const newPayment = async (amount = 12.5) => {
    const r = await payments.create(merchant.id, CreatePaymentInput.parse({ amount, currency: 'USD', redirect_url: 'https://shop.example/done' }));
    if (!r.ok) throw new Error(r.message);
    return r.payment;
  };
  return { store, chain, payments, settlement, shopWallet, newPayment };
}

type World = Awaited<ReturnType<typeof world>>;

/** What the hosted page does: ask for the typed data, sign it with the customer's key. */
async function pay(w: World, paymentId: string, funded = 100_000_000n) {
  const customer = privateKeyToAccount(generatePrivateKey());
  w.chain.fund(customer.address, funded);
  const issued = await w.settlement.authorizationFor(paymentId, customer.address);
  if (!issued.ok) throw new Error(issued.message);
  const authorization = issued.typedData.message as unknown as Record<string, string>;
  const signature = await customer.signTypedData(w.chain.transferWithAuthorizationTypedData(TransferAuthorization.parse(authorization)).typedData);
  return { customer: customer.address as Address, input: { authorization: TransferAuthorization.parse(authorization), signature: signature as Hex } };
}

describe('SettlementService over the fake chain port', () => {
  it('settles once: the money moves to the merchant wallet, the payment records the transaction', async () => {
    const w = await world();
    const p = await w.newPayment(12.5);
    const { customer, input } = await pay(w, p.id);
    const r = await w.settlement.settle(p.id, input);
    expect(r.ok && r.payment.status).toBe('settled');
    expect(r.ok && r.txHash).toBe(w.chain.sent[0]);
    expect((await w.payments.get(p.id))).toMatchObject({ status: 'settled', txHash: w.chain.sent[0], payer: customer });
    expect(w.chain.balance(w.shopWallet)).toBe(12_500_000n);
    // The same authorization again answers the same outcome and sends nothing more.
    const again = await w.settlement.settle(p.id, input);
    expect(again.ok && again.txHash).toBe(w.chain.sent[0]);
    expect(w.chain.sent).toHaveLength(1);
  });

  it('ten concurrent submits of one authorization: one transaction, every caller the same hash', async () => {
    const w = await world();
    const p = await w.newPayment();
    const { input } = await pay(w, p.id);
    const all = await Promise.all(Array.from({ length: 10 }, () => w.settlement.settle(p.id, input)));
    expect(w.chain.sent).toHaveLength(1);
    for (const r of all) expect(r.ok && r.txHash).toBe(w.chain.sent[0]);
  });

  it('a second wallet cannot pay a settled payment', async () => {
    const w = await world();
    const p = await w.newPayment();
    expect((await w.settlement.settle(p.id, (await pay(w, p.id)).input)).ok).toBe(true);
    const other = await pay(w, p.id).catch((e: Error) => e);
    // Asking for typed data is refused already; a forged submit is refused too.
    expect(other).toBeInstanceOf(Error);
    expect(w.chain.sent).toHaveLength(1);
  });

  it('refused by the node: back to pending with nothing moved, and the customer can pay again', async () => {
    const w = await world();
    const p = await w.newPayment();
    const { input } = await pay(w, p.id);
    w.chain.script.push('refuse');
    const r = await w.settlement.settle(p.id, input);
    expect(r.ok).toBe(false);
    expect((await w.payments.get(p.id))?.status).toBe('pending');
    expect(w.chain.balance(w.shopWallet)).toBe(0n);
    const retry = await w.settlement.settle(p.id, input);
    expect(retry.ok && retry.payment.status).toBe('settled');
  });

  it('a reverted transaction fails the payment and says nothing was charged', async () => {
    const w = await world();
    const p = await w.newPayment();
    const { input } = await pay(w, p.id);
    w.chain.script.push('revert');
    const r = await w.settlement.settle(p.id, input);
    expect(r).toMatchObject({ ok: false, reason: 'reverted' });
    expect(await w.payments.get(p.id)).toMatchObject({ status: 'failed', txHash: w.chain.sent[0] });
  });

  it('an answer lost after sending leaves processing with the hash; the reconciler settles it from the chain', async () => {
    const w = await world();
    const p = await w.newPayment();
    const { input } = await pay(w, p.id);
    w.chain.script.push('lose-answer', 'no-receipt');
    const first = await w.settlement.settle(p.id, input);
    // Either still processing with the hash, or already settled from the chain: never a second send.
    expect(first.ok).toBe(true);
    const summary = await w.settlement.reconcile();
    expect(summary.settled + (first.ok && first.payment.status === 'settled' ? 1 : 0)).toBe(1);
    expect(await w.payments.get(p.id)).toMatchObject({ status: 'settled', txHash: w.chain.sent[0] });
    expect(w.chain.sent).toHaveLength(1);
    expect(w.chain.balance(w.shopWallet)).toBe(12_500_000n);
  });

  it('no receipt in time: processing; the reconciler settles it once the receipt shows', async () => {
    const w = await world();
    const p = await w.newPayment();
    const { input } = await pay(w, p.id);
    w.chain.script.push('no-receipt');
    const r = await w.settlement.settle(p.id, input);
    expect(r.ok && r.payment.status).toBe('processing');
    expect((await w.payments.get(p.id))?.txHash).toBe(w.chain.sent[0]);
    w.chain.receipts.set(w.chain.sent[0]!, 'success');
    expect((await w.settlement.reconcile()).settled).toBe(1);
    expect((await w.payments.get(p.id))?.status).toBe('settled');
  });

  it('a payer without the money is refused before anything is sent', async () => {
    const w = await world();
    const p = await w.newPayment();
    const { input } = await pay(w, p.id, 1_000n);
    const r = await w.settlement.settle(p.id, input);
    expect(r).toMatchObject({ ok: false, reason: 'insufficient_balance' });
    expect(w.chain.sent).toHaveLength(0);
    expect((await w.payments.get(p.id))?.status).toBe('pending');
  });

  it('an authorization for another amount or recipient is refused', async () => {
    const w = await world();
    const p = await w.newPayment();
    const { input } = await pay(w, p.id);
    const cheaper = { ...input, authorization: { ...input.authorization, value: 1n } };
    expect(await w.settlement.settle(p.id, cheaper)).toMatchObject({ ok: false, reason: 'wrong_amount' });
    const elsewhere = { ...input, authorization: { ...input.authorization, to: '0x000000000000000000000000000000000000dEaD' as Address } };
    expect(await w.settlement.settle(p.id, elsewhere)).toMatchObject({ ok: false, reason: 'wrong_recipient' });
    expect(w.chain.sent).toHaveLength(0);
  });

  it('an attempt that never reached the chain: once chain time passes its window, the reconciler expires the payment', async () => {
    const w = await world();
    const p = await w.newPayment();
    const { input } = await pay(w, p.id);
    w.chain.script.push('refuse');
    expect((await w.settlement.settle(p.id, input)).ok).toBe(false);
    // Still open: the reconciler leaves it for the customer to pay again.
    expect((await w.settlement.reconcile()).expired).toBe(0);
    expect((await w.payments.get(p.id))?.status).toBe('pending');
    // Chain time past the authorization's validBefore, nothing used: it can never settle now.
    w.chain.advanceSeconds = 48 * 3600;
    expect((await w.settlement.reconcile()).expired).toBe(1);
    expect((await w.payments.get(p.id))?.status).toBe('expired');
    expect(w.chain.balance(w.shopWallet)).toBe(0n);
  });

  it('chain down while relaying: the payment is pending again and nothing was sent', async () => {
    const w = await world();
    const p = await w.newPayment();
    const { input } = await pay(w, p.id);
    w.chain.script.push('down');
    const r = await w.settlement.settle(p.id, input);
    expect(r.ok).toBe(false);
    expect(w.chain.sent).toHaveLength(0);
    expect((await w.payments.get(p.id))?.status).toBe('pending');
  });

  it('a byte-identical retry of a settled payment answers without recovering the signer again; any other signature is still recovered', async () => {
    // The fast project shares modules between files (isolate: false): a settlement module another
    // file loaded first holds the real viem, so this one is loaded afresh, under the counting mock.
    vi.resetModules();
    const { SettlementService: Counted } = await import('../../src/settlement/settlement.js');
    const w = await world(Counted);
    const p = await w.newPayment();
    const { input } = await pay(w, p.id);
    const first = await w.settlement.settle(p.id, input);
    expect(first.ok && first.payment.status).toBe('settled');
    recoveries.count = 0;
    // The same body again (hex case aside, as a page or a proxy may send it): the settled answer, no recovery.
    for (const signature of [input.signature, input.signature.toUpperCase().replace('0X', '0x') as Hex]) {
      const again = await w.settlement.settle(p.id, { ...input, signature });
      expect(again.ok && again.txHash).toBe(first.ok && first.txHash);
    }
    expect(recoveries.count).toBe(0);
    // The same authorization with its other valid signature (s -> n - s, parity flipped) is not
    // the recorded bytes: recovered, and still the same payer's, so the same settled answer.
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const sig = input.signature.slice(2);
    const highS = (n - BigInt(`0x${sig.slice(64, 128)}`)).toString(16).padStart(64, '0');
    const v = parseInt(sig.slice(128, 130), 16) === 27 ? '1c' : '1b';
    const malleated = `0x${sig.slice(0, 64)}${highS}${v}` as Hex;
    const other = await w.settlement.settle(p.id, { ...input, signature: malleated });
    expect(other.ok && other.txHash).toBe(first.ok && first.txHash);
    expect(recoveries.count).toBe(1);
    // A signature by another key for the payer's authorization: recovered, refused.
    const forged = (await privateKeyToAccount(generatePrivateKey()).signTypedData(w.chain.transferWithAuthorizationTypedData(input.authorization).typedData)) as Hex;
    const refused = await w.settlement.settle(p.id, { ...input, signature: forged });
    expect(!refused.ok && refused.reason).toBe('already_settled');
    expect(recoveries.count).toBe(2);
    expect(w.chain.sent).toHaveLength(1);
  });
});
