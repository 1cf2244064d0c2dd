import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { AccountsService } from '../../src/accounts/accounts.js';
import { TransferAuthorization } from '../../src/chain/authorization.js';
import type { ChainService } from '../../src/chain/chain.js';
import type { PaymentsService } from '../../src/payments/payments.js';
import { CreatePaymentInput } from '../../src/payments/payment-schemas.js';
import { AttemptLedger, SettlementAttempts, attemptId } from '../../src/settlement/attempts.js';
import { SettlementService } from '../../src/settlement/settlement.js';
import { Facilitator } from '../../src/x402/facilitator.js';
import type { FacilitatorRequest } from '../../src/x402/x402-schemas.js';
import type { TestService } from '../helpers/service.js';
import { signedRequest } from '../x402/helpers.js';
import { InstanceLease, PgStore } from '../../src/store/index.js';
import { until } from '../helpers/cluster.js';
import { transactionsCarrying, type twoRelayers } from '../chain/helpers.js';
import { checkoutPair, leaseOwner } from './checkout-pair.js';

/**
 * A checkout (and x402 facilitator) settle owner stalled PAST its deadline (h12truth). Its lease
 * lapsed and its deadline passed on the database's clock, so a survivor took the attempt over and
 * sent the stored authorization from its own relayer; then the stalled owner went on. On the base
 * it broadcast too: two transactions for one authorization, one reverted, its gas lost. Now the
 * owner's send has the relayed moves' broadcast fence (owned-relay.ts): checked before joining a
 * group and right before the raw transaction leaves, it sends nothing and answers `processing`
 * (x402: `settlement_pending`). Two settlement services (instances A and B) on one real
 * PostgreSQL database and one anvil, each with its own relayer; A is held in its relay journal's
 * record (after verification, simulation, nonce and signature: the last step before the
 * broadcast) until B's take-over is in the pool.
 */
const logger = pino({ level: 'silent' });

describe('checkout and x402 settles: an owner stalled past its deadline never broadcasts after a take-over (real anvil, PostgreSQL, two instances)', () => {
  let store: PgStore;
  let a: ChainService;
  let b: ChainService;
  let slow: Awaited<ReturnType<typeof twoRelayers>>['slow'];
  let close = async () => {};
  let accounts: AccountsService;
  let payments: PaymentsService;
  let accountId: string;

  beforeAll(async () => {
    ({ store, a, b, slow, close, accounts, payments, accountId } = await checkoutPair('ckfence', 'Fence Shop'));
  }, 120_000);
  afterAll(() => close());

  const rpc = (method: string, params: unknown[] = []) => a.publicClient.request({ method: method as never, params: params as never });

  const owner = (id: string) => leaseOwner(store, id);

  /** The owner's window: short enough to wait out (a condition, not a duration), long enough to reach the broadcast on a loaded machine. */
  const SPAN_MS = 4_000;

  /**
   * A's lease taken once and not renewed; mining held; A started and held in its journal record;
   * its lease lapsed and its attempt's deadline passed on the database's clock; then the survivor
   * takes the attempt over and sends; then A goes on. Exactly one transaction carries `nonce`: B's.
   */
  async function stalledPastDeadline<T>(ownerId: string, nonce: Hex, attempt: string, owned: () => Promise<T>, survivor: () => Promise<void>) {
    const from = await a.publicClient.getBlockNumber({ cacheTime: 0 });
    await store.lease(InstanceLease.leaseName(ownerId), ownerId, 1_000);
    await rpc('evm_setAutomine', [false]);
    slow.arm();
    try {
      const running = owned();
      await slow.reached;
      await until(async () => (await store.leaseOwner(InstanceLease.leaseName(ownerId))) === undefined, 'A\'s lease to lapse', 30_000);
      const row = (await store.table(SettlementAttempts).get(attempt))!;
      await until(async () => (await store.getWithClock!(SettlementAttempts, attempt)).now > Date.parse(row.deadlineAt), 'A\'s deadline to pass on the database\'s clock', 30_000);
      await survivor();
      const taken = await until(async () => {
        const r = await store.table(SettlementAttempts).get(attempt);
        return r?.generation === 2 && r.txHash && (await b.transactionKnown(r.txHash as Hex)) ? r : undefined;
      }, 'B to take the attempt over and send', 60_000);
      // The stalled owner goes on now.
      slow.open();
      const answer = await running;
      const bTx = taken.txHash as Hex;
      expect(await transactionsCarrying(a, nonce, from)).toEqual([{ hash: bTx, from: b.relayerAddress.toLowerCase(), status: 'pending' }]);
      await rpc('evm_setAutomine', [true]);
      await rpc('evm_mine');
      expect(await transactionsCarrying(a, nonce, from)).toEqual([{ hash: bTx, from: b.relayerAddress.toLowerCase(), status: 'success' }]);
      return { answer, bTx };
    } finally {
      slow.open();
      await rpc('evm_setAutomine', [true]);
    }
  }

  it('checkout: the owner sends nothing after the take-over and answers processing; the survivor\'s one transaction settles the payment', { timeout: 120_000 }, async () => {
    const instance = (id: string, chain: ChainService, confirmTimeoutMs: number) =>
      new SettlementService({ store, payments, accounts, chain, logger, confirmTimeoutMs, reconcileWaitMs: 200, chainDelayMs: 0, owner: owner(id), relayer: chain.relayerAddress });
    const A = instance('ck-instance-a', a, SPAN_MS);
    const B = instance('ck-instance-b', b, 1_000);
    const p = await payments.create(
      accountId,
      CreatePaymentInput.parse({ amount: 1, currency: 'USD', redirect_url: 'https://shop.example/done', payout_address: privateKeyToAccount(generatePrivateKey()).address }),
    );
    if (!p.ok) throw new Error(p.message);
    const paymentId = p.payment.id;
    const payer = privateKeyToAccount(generatePrivateKey());
    expect((await a.faucet(payer.address, 5_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const issued = await A.authorizationFor(paymentId, payer.address);
    if (!issued.ok) throw new Error(issued.message);
    const authorization = TransferAuthorization.parse(issued.typedData.message);
    const signature = (await payer.signTypedData(a.transferWithAuthorizationTypedData(authorization).typedData)) as Hex;
    const input = { authorization, signature };
    const id = attemptId('checkout', payer.address, authorization.nonce);
    const { answer, bTx } = await stalledPastDeadline(
      'ck-instance-a',
      authorization.nonce,
      id,
      () => A.settle(paymentId, input),
      // The same signed settle reaches B: A is gone past its deadline, so B takes over and sends (202 processing).
      async () => void expect(await B.settle(paymentId, input)).toMatchObject({ ok: true, payment: { status: 'processing' } }),
    );
    // A: nothing sent, never "nothing was charged": processing, naming the survivor's transaction.
    expect(answer).toMatchObject({ ok: true, payment: { status: 'processing', txHash: bTx } });
    expect(await B.settle(paymentId, input)).toMatchObject({ ok: true, payment: { status: 'settled' }, txHash: bTx });
    expect(await payments.get(paymentId)).toMatchObject({ status: 'settled', txHash: bTx });
    expect(await B.attempts.get(id)).toMatchObject({ state: 'done', generation: 2, instanceId: 'ck-instance-b', answer: { ok: true, txHash: bTx } });
  });

  it('x402: the owner sends nothing after the take-over and answers settlement_pending; the survivor\'s one transaction is the settle', { timeout: 120_000 }, async () => {
    const facilitator = (id: string, chain: ChainService, receiptTimeoutMs: number) =>
      new Facilitator({ port: chain, store, logger, receiptTimeoutMs, ledger: new AttemptLedger(store, owner(id), SPAN_MS, chain.relayerAddress) });
    const A = facilitator('x402-instance-a', a, 60_000);
    const B = facilitator('x402-instance-b', b, 1_000);
    const payer = privateKeyToAccount(generatePrivateKey());
    expect((await a.faucet(payer.address, 5_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const req = (await signedRequest({ deps: { chain: a } } as unknown as TestService, payer, { payTo: privateKeyToAccount(generatePrivateKey()).address, amount: '1000000' })) as unknown as FacilitatorRequest;
    const nonce = (req.paymentPayload as unknown as { payload: { authorization: { nonce: Hex } } }).payload.authorization.nonce;
    const id = attemptId('x402', payer.address, nonce);
    const { answer, bTx } = await stalledPastDeadline(
      'x402-instance-a',
      nonce,
      id,
      () => A.settle(accountId, req),
      async () => void expect(await B.settle(accountId, req)).toMatchObject({ success: false, errorReason: 'settlement_pending' }),
    );
    expect(answer).toMatchObject({ success: false, errorReason: 'settlement_pending', transaction: '' });
    expect(await store.table(SettlementAttempts).get(id)).toMatchObject({ state: 'open', generation: 2, instanceId: 'x402-instance-b', txHash: bTx });
    expect(await B.settle(accountId, req)).toMatchObject({ success: true, transaction: bTx });
  });
});
