import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { AccountsService } from '../../src/accounts/accounts.js';
import { TransferAuthorization } from '../../src/chain/authorization.js';
import type { ChainService } from '../../src/chain/chain.js';
import type { PaymentsService } from '../../src/payments/payments.js';
import { CreatePaymentInput } from '../../src/payments/payment-schemas.js';
import { AttemptLedger, SettlementAttempts, attemptId, type Clock } from '../../src/settlement/attempts.js';
import { Facilitator } from '../../src/x402/facilitator.js';
import type { FacilitatorRequest } from '../../src/x402/x402-schemas.js';
import type { TestService } from '../helpers/service.js';
import { signedRequest } from '../x402/helpers.js';
import { SettlementService } from '../../src/settlement/settlement.js';
import { InstanceLease, PgStore } from '../../src/store/index.js';
import { until } from '../helpers/cluster.js';
import { transactionsCarrying, type twoRelayers } from '../chain/helpers.js';
import { checkoutPair, leaseOwner } from './checkout-pair.js';

/**
 * Checkout take-overs on the database's clock (h10relay). A checkout settle attempt is taken over
 * by another instance once its owner's instance lease lapsed and its deadline (confirm timeout plus
 * the chain's delay) passed. The lease runs on the database's clock; the deadline was written and
 * judged on each process's own clock. An owner that stopped renewing its lease (stalled) while it
 * is still on its way to the broadcast keeps, by design, its whole window: the deadline. With a
 * survivor's clock ahead (or the owner's behind) by more than that window, the survivor saw the
 * deadline passed at once, took the attempt over and sent the stored authorization from its
 * relayer; the owner then sent its own: two transactions for one authorization (one reverts, its
 * gas lost). Now the deadline is written in the database's time and a take-over reads the
 * database's clock with the row. Two settlement services (instances A and B) on one real
 * PostgreSQL database and one anvil, each with its relayer; A is held in its relay journal's
 * record, the last step before its broadcast. The skew is the clock port of that instance.
 */
const logger = pino({ level: 'silent' });
const SKEW_MS = 120_000;

describe('checkout take-overs on the database\'s clock (real anvil, PostgreSQL, two instances)', () => {
  let store: PgStore;
  let a: ChainService;
  let b: ChainService;
  let slow: Awaited<ReturnType<typeof twoRelayers>>['slow'];
  let close = async () => {};
  let accounts: AccountsService;
  let payments: PaymentsService;
  let accountId: string;

  beforeAll(async () => {
    ({ store, a, b, slow, close, accounts, payments, accountId } = await checkoutPair('tkclock', 'Clock Shop'));
  }, 120_000);
  afterAll(() => close());

  const rpc = (method: string, params: unknown[] = []) => a.publicClient.request({ method: method as never, params: params as never });

  const owner = (id: string) => leaseOwner(store, id);

  function instance(id: string, chain: ChainService, o: { confirmTimeoutMs: number; clock?: Clock }) {
    return new SettlementService({
      store,
      payments,
      accounts,
      chain,
      logger,
      confirmTimeoutMs: o.confirmTimeoutMs,
      reconcileWaitMs: 200,
      chainDelayMs: 0,
      owner: owner(id),
      relayer: chain.relayerAddress,
      ...(o.clock ? { clock: o.clock } : {}),
    });
  }

  /**
   * The scene both settles share. A's lease is taken once and not renewed: it lapses on the
   * database's clock while A's settle is still on its way to the broadcast (a stalled instance).
   * Mining held, A started and held in its journal record, its lease lapsed, then `survivor` (B
   * looks at the attempt), then A goes on: its transaction must be the only one carrying `nonce`
   * (on the base B's take-over had sent one from B's relayer too), checked again once mined.
   */
  async function stalledOwner<T>(ownerId: string, nonce: Hex, owner: () => Promise<T>, survivor: () => Promise<void>, whilePending: (sent: Hex) => Promise<void>) {
    const from = await a.publicClient.getBlockNumber({ cacheTime: 0 });
    const fromA = (t: { from: string }) => t.from === a.relayerAddress.toLowerCase();
    await store.lease(InstanceLease.leaseName(ownerId), ownerId, 1_000);
    await rpc('evm_setAutomine', [false]);
    slow.arm();
    try {
      const owned = owner();
      await slow.reached;
      await until(async () => (await store.leaseOwner(InstanceLease.leaseName(ownerId))) === undefined, 'A\'s lease to lapse', 30_000);
      await survivor();
      slow.open();
      const sent = await until(async () => (await transactionsCarrying(a, nonce, from)).find(fromA)?.hash, 'A to broadcast', 60_000);
      expect(await transactionsCarrying(a, nonce, from)).toEqual([{ hash: sent, from: a.relayerAddress.toLowerCase(), status: 'pending' }]);
      await whilePending(sent);
      await rpc('evm_setAutomine', [true]);
      await rpc('evm_mine');
      const answer = await owned;
      expect(await transactionsCarrying(a, nonce, from)).toEqual([{ hash: sent, from: a.relayerAddress.toLowerCase(), status: 'success' }]);
      return { answer, sent };
    } finally {
      slow.open();
      await rpc('evm_setAutomine', [true]);
    }
  }

  for (const skewed of ['the survivor\'s clock ahead', 'the owner\'s clock behind'] as const) {
    it(`${skewed} by more than the window: no take-over while the owner's deadline is ahead on the database's clock, one transaction`, { timeout: 120_000 }, async () => {
      const ahead = skewed.includes('ahead');
      const tag = ahead ? 'ahead' : 'behind';
      // The owner's window: 30 s on the database's clock (its deadline); the skew is two minutes.
      const A = instance(`instance-a-${tag}`, a, { confirmTimeoutMs: 30_000, ...(ahead ? {} : { clock: () => Date.now() - SKEW_MS }) });
      const B = instance(`instance-b-${tag}`, b, { confirmTimeoutMs: 1_000, ...(ahead ? { clock: () => Date.now() + SKEW_MS } : {}) });
      const p = await payments.create(
        accountId,
        CreatePaymentInput.parse({ amount: 1, currency: 'USD', redirect_url: 'https://shop.example/done', payout_address: privateKeyToAccount(generatePrivateKey()).address }),
      );
      if (!p.ok) throw new Error(p.message);
      const paymentId = p.payment.id;
      const payer = privateKeyToAccount(generatePrivateKey());
      const funded = await a.faucet(payer.address, 5_000_000n, { nativeAmount: 0n });
      expect(funded.ok).toBe(true);
      const issued = await A.authorizationFor(paymentId, payer.address);
      if (!issued.ok) throw new Error(issued.message);
      const authorization = TransferAuthorization.parse(issued.typedData.message);
      const signature = (await payer.signTypedData(a.transferWithAuthorizationTypedData(authorization).typedData)) as Hex;
      const input = { authorization, signature };
      const id = attemptId('checkout', payer.address, authorization.nonce);
      const { answer, sent } = await stalledOwner(
        `instance-a-${tag}`,
        authorization.nonce,
        () => A.settle(paymentId, input),
        // The same signed settle reaches B: it joins A's attempt, and may judge it only past the deadline.
        async () => void expect(await B.settle(paymentId, input)).toMatchObject({ ok: true, payment: { status: 'processing' } }),
        async (sent) => void expect(await A.attempts.get(id)).toMatchObject({ state: 'open', generation: 1, instanceId: `instance-a-${tag}`, txHash: sent }),
      );
      expect(answer).toMatchObject({ ok: true, payment: { status: 'settled' }, txHash: sent });
      expect(await payments.get(paymentId)).toMatchObject({ status: 'settled', txHash: sent });
      expect(await A.attempts.get(id)).toMatchObject({ state: 'done', generation: 1, answer: { ok: true, txHash: sent } });
    });
  }

  // The x402 facilitator's take-over (src/x402/facilitator.ts) follows the same rule.
  for (const skewed of ['the survivor\'s clock ahead', 'the owner\'s clock behind'] as const) {
    it(`x402: ${skewed} by more than the window: the survivor answers pending, one transaction`, { timeout: 120_000 }, async () => {
      const ahead = skewed.includes('ahead');
      const tag = `x402-${ahead ? 'ahead' : 'behind'}`;
      const facilitator = (id: string, chain: ChainService, receiptTimeoutMs: number, clock?: Clock) =>
        new Facilitator({ port: chain, store, logger, receiptTimeoutMs, ledger: new AttemptLedger(store, owner(id), 30_000, chain.relayerAddress, clock) });
      const A = facilitator(`instance-a-${tag}`, a, 60_000, ahead ? undefined : () => Date.now() - SKEW_MS);
      const B = facilitator(`instance-b-${tag}`, b, 1_000, ahead ? () => Date.now() + SKEW_MS : undefined);
      const payer = privateKeyToAccount(generatePrivateKey());
      expect((await a.faucet(payer.address, 5_000_000n, { nativeAmount: 0n })).ok).toBe(true);
      const req = (await signedRequest({ deps: { chain: a } } as unknown as TestService, payer, { payTo: privateKeyToAccount(generatePrivateKey()).address, amount: '1000000' })) as unknown as FacilitatorRequest;
      const nonce = (req.paymentPayload as unknown as { payload: { authorization: { nonce: Hex } } }).payload.authorization.nonce;
      const { answer, sent } = await stalledOwner(
        `instance-a-${tag}`,
        nonce,
        () => A.settle(accountId, req),
        async () => void expect(await B.settle(accountId, req)).toMatchObject({ success: false, errorReason: 'settlement_pending' }),
        async () => void expect(await store.table(SettlementAttempts).get(attemptId('x402', payer.address, nonce))).toMatchObject({ generation: 1, instanceId: `instance-a-${tag}` }),
      );
      expect(answer).toMatchObject({ success: true, transaction: sent });
    });
  }
});
