/**
 * One relay path (issue 22, point 3): every kind of on-chain move (checkout settle, x402 exact
 * settle, the deposit sweep, paid through the registered deposit-address method, a custodial move
 * alone and with its fee, a refund) reaches the chain port's one send, `submitTransfers`, only
 * from inside `relayOnce`; and the x402 auth-capture escrow's contract calls (capture, void, the
 * refund collector's approval and the escrow refund, a funding return) reach the call port's
 * `send` only from inside `relayOnce` too. The fake ports record, for each send, whether
 * `relayOnce` is on the call stack.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { AccountsService } from '../../src/accounts/accounts.js';
import { TransferAuthorization } from '../../src/chain/authorization.js';
import type { SubmitOptions, SubmitResult } from '../../src/chain/chain.js';
import type { SignedAuthorization } from '../../src/chain/chain-port.js';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import { PaymentsService } from '../../src/payments/payments.js';
import { CreatePaymentInput } from '../../src/payments/payment-schemas.js';
import { RefundsService } from '../../src/refunds/refunds.js';
import { CreateRefundInput } from '../../src/refunds/refund-schemas.js';
import { SettlementService } from '../../src/settlement/settlement.js';
import { depositWatcherFor } from '../../src/settlement/deposit-watcher-for.js';
import { LowdbStore } from '../../src/store/index.js';
import { moveOnce } from '../../src/wallet/custodial-move.js';
import { moveWithFeeOnce } from '../../src/wallet/custodial-fee-move.js';
import { settleExact } from '../../src/x402/exact-evm.js';
import { payWith, type PayRails } from '../../src/checkout-sessions/pay.js';
import { shippedMethods } from '../../src/checkout-sessions/methods/payment-methods.js';
import { escrowCallWorld } from './escrow-call-world.js';
import { FakeChain } from '../helpers/fake-chain.js';

/** A fake port that notes each send and whether it came through relayOnce. */
class CountingChain extends FakeChain {
  readonly sends: { items: number; viaRelayOnce: boolean }[] = [];
  override submitTransfers(items: readonly SignedAuthorization[], opts?: SubmitOptions): Promise<SubmitResult> {
    const stack = new Error().stack ?? '';
    this.sends.push({ items: items.length, viaRelayOnce: /\brelayOnce\b/.test(stack) });
    return super.submitTransfers(items, opts);
  }
}

const shop = '0x0000000000000000000000000000000000005409' as Address;
const feeWallet = '0x000000000000000000000000000000000000fee0' as Address;

async function world() {
  const store = LowdbStore.inMemory();
  const chain = new CountingChain();
  const fx = new FxService(loadFxTable());
  const accounts = new AccountsService(store, {});
  const payments = new PaymentsService(store, fx, 'http://localhost:3000');
  const logger = pino({ level: 'silent' });
  const settlement = new SettlementService({ store, payments, accounts, chain, logger, confirmTimeoutMs: 50, reconcileWaitMs: 10 });
  const refunds = new RefundsService({ store, payments, accounts, chain, fx, logger, outbox: { record: async () => undefined }, confirmTimeoutMs: 50 });
  const created = await accounts.create({ name: 'Acme Books', email: 'acme@example.com' });
  if (!created.ok) throw new Error(created.message);
  const merchant = created.account;
  const newPayment = async () => {
    const r = await payments.create(merchant.id, CreatePaymentInput.parse({ amount: 12.5, currency: 'USD', redirect_url: 'https://shop.example/done' }));
    if (!r.ok) throw new Error(r.message);
    return r.payment;
  };
  return { store, chain, payments, settlement, refunds, merchant, newPayment };
}

type World = Awaited<ReturnType<typeof world>>;

/** A checkout paid the way the hosted page pays it: a signed authorization, settled. */
async function settleCheckout(w: World): Promise<string> {
  const p = await w.newPayment();
  const customer = privateKeyToAccount(generatePrivateKey());
  w.chain.fund(customer.address, 100_000_000n);
  const issued = await w.settlement.authorizationFor(p.id, customer.address);
  if (!issued.ok) throw new Error(issued.message);
  const authorization = TransferAuthorization.parse(issued.typedData.message);
  const signature = (await customer.signTypedData(w.chain.transferWithAuthorizationTypedData(authorization).typedData)) as Hex;
  const r = await w.settlement.settle(p.id, { authorization, signature });
  expect(r.ok && r.payment.status).toBe('settled');
  return p.id;
}

async function x402Settle(w: World): Promise<void> {
  const payer = privateKeyToAccount(generatePrivateKey());
  w.chain.fund(payer.address, 50_000n);
  const now = BigInt(Math.floor(Date.now() / 1000));
  const auth = { from: payer.address, to: shop, value: 10_000n, validAfter: now - 60n, validBefore: now + 600n, nonce: `0x${'ab'.repeat(32)}` as Hex };
  const signature = await payer.signTypedData(w.chain.transferWithAuthorizationTypedData(auth).typedData);
  const requirements = { scheme: 'exact', network: 'eip155:31337', amount: '10000', asset: w.chain.tokenAddress, payTo: shop, maxTimeoutSeconds: 60 };
  const authorization = Object.fromEntries(Object.entries(auth).map(([k, v]) => [k, v.toString()]));
  const res = await settleExact(w.chain, {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: requirements, payload: { authorization, signature } },
    paymentRequirements: requirements,
  });
  expect(res).toMatchObject({ success: true, transaction: w.chain.sent.at(-1) });
}

describe('every on-chain move goes through relayOnce', () => {
  it('checkout settle, x402 settle, deposit sweep, custodial move, move with fee, refund: each send is inside relayOnce', async () => {
    const w = await world();
    const kinds: Record<string, number> = {};
    const step = async (kind: string, run: () => Promise<unknown>) => {
      const before = w.chain.sends.length;
      await run();
      kinds[kind] = w.chain.sends.length - before;
    };

    let paid = '';
    await step('checkout settle', async () => (paid = await settleCheckout(w)));
    await step('x402 exact settle', () => x402Settle(w));
    await step('deposit sweep', async () => {
      const p = await w.newPayment();
      const deposits = depositWatcherFor(w.settlement, { store: w.store, payments: w.payments, chain: w.chain, logger: pino({ level: 'silent' }) });
      // As the composition root wires it: the watcher hands the deposit to the registered method.
      const rails = { store: w.store, chain: w.chain, settlement: w.settlement, x402Port: w.chain } as unknown as PayRails;
      const methods = shippedMethods();
      expect(methods.names()).toContain('deposit-address');
      const handed: string[] = [];
      deposits.handOver(async (payment, input) => {
        handed.push(input.method);
        return payWith(methods, rails, payment, input);
      });
      const d = await deposits.depositFor(p);
      const phone = privateKeyToAccount(generatePrivateKey()).address;
      w.chain.fund(phone, 20_000_000n);
      w.chain.transfer(phone, d!.address, 12_500_000n);
      await deposits.pass();
      expect((await w.payments.get(p.id))?.status).toBe('settled');
      expect(handed).toEqual(['deposit-address']);
    });
    const from = w.chain.custodialAddress(5);
    w.chain.fund(from, 1_000_000n);
    await step('custodial move', async () =>
      expect(await moveOnce(w.chain, { fromIndex: 5, to: shop, value: 1_000n, kind: 'transfer', id: 'tr_1' })).toMatchObject({ status: 'settled' }),
    );
    await step('custodial move with fee', async () =>
      expect(
        await moveWithFeeOnce(w.chain, { fromIndex: 5, to: shop, value: 1_000n, kind: 'transfer', id: 'tr_2' }, { to: feeWallet, value: 10n, kind: 'transfer-fee' }),
      ).toMatchObject({ status: 'settled' }),
    );
    await step('refund', async () => {
      w.chain.fund(w.chain.custodialAddress(w.merchant.walletIndex), 1_000_000_000n);
      const r = await w.refunds.create(w.merchant.id, paid, CreateRefundInput.parse({ amount: 1 }));
      if (!r.ok) throw new Error(r.message);
      const done = await w.refunds.execute(r.refund.id);
      expect(done.status).toBe('succeeded');
    });

    // Each kind sent exactly one transaction (the fee rides with its move), all through relayOnce.
    expect(kinds).toEqual({
      'checkout settle': 1,
      'x402 exact settle': 1,
      'deposit sweep': 1,
      'custodial move': 1,
      'custodial move with fee': 1,
      refund: 1,
    });
    expect(w.chain.sends.filter((s) => !s.viaRelayOnce)).toEqual([]);
    expect(w.chain.sends.map((s) => s.items)).toEqual([1, 1, 1, 1, 2, 1]);
  });
});

describe('escrow contract calls go through relayOnce too', () => {
  it('capture, capture-and-void, collector approval, escrow refund, funding return: each call is sent inside relayOnce', async () => {
    const e = await escrowCallWorld();
    await e.capture();
    await e.captureAndVoid();
    await e.refund();
    await e.returnFunding();
    expect(e.sends.map((x) => x.what)).toEqual(['capture', 'capture', 'void', 'approve', 'refund', 'transfer']);
    expect(e.sends.filter((x) => !x.viaRelayOnce)).toEqual([]);
  });

  it('no file under src/ but the relay path (and the port implementing it) calls a send of the chain port', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((f) => (f.isDirectory() ? files(path.join(dir, f.name)) : f.name.endsWith('.ts') ? [path.join(dir, f.name)] : []));
    const root = path.resolve(import.meta.dirname, '../..');
    const senders = files(path.join(root, 'src'))
      .filter((f) => /\.(call\.send|submitTransfers)\(/.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(root, f));
    expect(senders.sort()).toEqual(['src/chain/chain-service.ts', 'src/chain/relay.ts']);
  });
});

describe('x402 exact settle reads the one relay outcome', () => {
  it('money moved by a transaction this settle did not send answers nonce_already_used with that transaction, not success', async () => {
    const w = await world();
    // The race: verification passed, then an earlier send of the same authorization was mined.
    w.chain.verifyTransferAuthorization = async (auth) => ({ ok: true as const, signer: auth.from });
    const payer = privateKeyToAccount(generatePrivateKey());
    w.chain.fund(payer.address, 50_000n);
    const now = BigInt(Math.floor(Date.now() / 1000));
    const auth = { from: payer.address, to: shop, value: 10_000n, validAfter: now - 60n, validBefore: now + 600n, nonce: `0x${'cd'.repeat(32)}` as Hex };
    const signature = await payer.signTypedData(w.chain.transferWithAuthorizationTypedData(auth).typedData);
    const earlier = await w.chain.submitTransfers([{ auth, signature }]);
    if (!earlier.ok) throw new Error(earlier.message);
    const requirements = { scheme: 'exact', network: 'eip155:31337', amount: '10000', asset: w.chain.tokenAddress, payTo: shop, maxTimeoutSeconds: 60 };
    const authorization = Object.fromEntries(Object.entries(auth).map(([k, v]) => [k, v.toString()]));
    const res = await settleExact(w.chain, {
      x402Version: 2,
      paymentPayload: { x402Version: 2, accepted: requirements, payload: { authorization, signature } },
      paymentRequirements: requirements,
    });
    expect(res).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_nonce_already_used', transaction: earlier.txHash });
    expect(w.chain.balance(shop)).toBe(10_000n);
  });
});
