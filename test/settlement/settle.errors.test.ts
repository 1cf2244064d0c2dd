import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, http, parseEther, type Address, type Hex } from 'viem';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { call } from '../helpers/service.js';
import { Payments } from '../../src/payments/payments.js';
import {
  authorize,
  createPayment,
  customer,
  merchantWallet,
  paymentRecord,
  settle,
  setup,
  stored,
  usdc,
  type Ctx,
  type Signed,
} from './helpers.js';

/**
 * Every refusal leaves the payment as it was and moves nothing: same balances, and the
 * relayer sent no transaction.
 */
describe('settlement: failures leave the payment and the balances unchanged', () => {
  let ctx: Ctx;
  beforeAll(async () => {
    ctx = await setup();
  });
  afterAll(async () => {
    await ctx?.svc.stop({ removeData: true });
  });

  async function expectRefused(
    paymentId: string,
    payer: Address,
    attempt: () => Promise<{ status: number; body: any }>,
    want: { status: number; reason: string; paymentStatus: string; txHash?: string | null },
  ) {
    const { chain } = ctx.svc.deps;
    const to = await merchantWallet(ctx);
    const [payerBefore, merchantBefore, relayerNonce] = await Promise.all([
      chain.balanceOf(payer),
      chain.balanceOf(to),
      chain.publicClient.getTransactionCount({ address: chain.relayerAddress }),
    ]);
    const res = await attempt();
    expect(res.status, JSON.stringify(res.body)).toBe(want.status);
    expect(res.body.ok).toBe(false);
    expect(res.body.reason).toBe(want.reason);
    expect(typeof res.body.error).toBe('string');
    expect(res.body.error.length).toBeGreaterThan(0);
    expect((await stored(ctx, paymentId)).status).toBe(want.paymentStatus);
    expect((await paymentRecord(ctx, paymentId)).tx_hash).toBe(want.txHash ?? null);
    expect(await chain.balanceOf(payer)).toBe(payerBefore);
    expect(await chain.balanceOf(to)).toBe(merchantBefore);
    expect(await chain.publicClient.getTransactionCount({ address: chain.relayerAddress })).toBe(relayerNonce);
    return res;
  }

  it('bad signature: signed by another key, or not a signature of this message', async () => {
    const pay = await createPayment(ctx);
    const payer = await customer(ctx, usdc('12.5'));
    const impostor = privateKeyToAccount(generatePrivateKey());
    const issued = await authorize(ctx, pay.id, payer);
    const forged: Signed = { ...issued, signature: await impostor.signTypedData(issued.typedData) };
    const res = await expectRefused(pay.id, payer.address, () => settle(ctx, pay.id, forged), {
      status: 400,
      reason: 'invalid_signature',
      paymentStatus: 'pending',
    });
    expect(res.body.error).toMatch(/signature/i);

    const garbage: Signed = { ...issued, signature: `0x${'11'.repeat(64)}1b` as Hex };
    await expectRefused(pay.id, payer.address, () => settle(ctx, pay.id, garbage), {
      status: 400,
      reason: 'invalid_signature',
      paymentStatus: 'pending',
    });
  });

  it('wrong amount, recipient, nonce or validity: validly signed but not what was issued', async () => {
    const pay = await createPayment(ctx);
    const payer = await customer(ctx, usdc('100'));
    const attacker = privateKeyToAccount(generatePrivateKey()).address;
    const cases: Array<[string, (m: Record<string, string>) => void]> = [
      ['wrong_amount', (m) => (m.value = String(BigInt(m.value!) - 1n))],
      ['wrong_amount', (m) => (m.value = String(BigInt(m.value!) * 2n))],
      ['wrong_recipient', (m) => (m.to = attacker)],
      ['wrong_nonce', (m) => (m.nonce = `0x${'ab'.repeat(32)}`)],
      ['wrong_validity', (m) => (m.validBefore = String(BigInt(m.validBefore!) + 3600n))],
    ];
    for (const [reason, tamper] of cases) {
      const signed = await authorize(ctx, pay.id, payer, tamper);
      await expectRefused(pay.id, payer.address, () => settle(ctx, pay.id, signed), { status: 400, reason, paymentStatus: 'pending' });
    }
    // And the untampered authorization still works afterwards.
    const ok = await settle(ctx, pay.id, await authorize(ctx, pay.id, payer));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(await ctx.svc.deps.chain.balanceOf(attacker)).toBe(0n);
  });

  it('too little balance: 402, then pays once funded', async () => {
    const pay = await createPayment(ctx, { amount: 12.5 });
    const payer = await customer(ctx, usdc('12.499999'));
    const signed = await authorize(ctx, pay.id, payer);
    const res = await expectRefused(pay.id, payer.address, () => settle(ctx, pay.id, signed), {
      status: 402,
      reason: 'insufficient_balance',
      paymentStatus: 'pending',
    });
    expect(res.body.error).toMatch(/enough/i);

    const empty = await customer(ctx);
    await expectRefused(pay.id, empty.address, async () => settle(ctx, pay.id, await authorize(ctx, pay.id, empty)), {
      status: 402,
      reason: 'insufficient_balance',
      paymentStatus: 'pending',
    });

    await ctx.svc.deps.chain.faucet(payer.address, 1n, { nativeAmount: 0n });
    const paid = await settle(ctx, pay.id, signed);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  });

  it('expired payment: 410, nothing sent, and nothing more to sign', async () => {
    const pay = await createPayment(ctx, { expires_in_minutes: 1 });
    const payer = await customer(ctx, usdc('12.5'));
    const signed = await authorize(ctx, pay.id, payer);
    // The session ran out (set the clock of this one payment back rather than wait a minute).
    await ctx.svc.deps.store.transaction(async (tx) => {
      await tx.table(Payments).update(pay.id, { expiresAt: new Date(Date.now() - 1000).toISOString() });
    });
    // Read as expired at once (effective status), even before the sweeper stores it.
    const res = await expectRefused(pay.id, payer.address, () => settle(ctx, pay.id, signed), {
      status: 410,
      reason: 'expired',
      paymentStatus: 'expired',
    });
    expect(res.body.error).toMatch(/expired/i);
    const auth = await call(`${ctx.svc.api}/checkout/${pay.id}/authorization`, { body: { from: payer.address } });
    expect(auth.status).toBe(410);
    expect(auth.body).toMatchObject({ ok: false, reason: 'expired' });

    await ctx.svc.deps.payments.sweepExpired();
    expect((await ctx.svc.deps.store.table(Payments).get(pay.id))!.status).toBe('expired');
    await expectRefused(pay.id, payer.address, () => settle(ctx, pay.id, signed), { status: 410, reason: 'expired', paymentStatus: 'expired' });
  });

  it('already settled by another authorization: 409, the second payer keeps their money', async () => {
    const pay = await createPayment(ctx);
    const first = await customer(ctx, usdc('12.5'));
    const second = await customer(ctx, usdc('12.5'));
    const firstSigned = await authorize(ctx, pay.id, first);
    const secondSigned = await authorize(ctx, pay.id, second);
    const ok = await settle(ctx, pay.id, firstSigned);
    expect(ok.status).toBe(200);
    await expectRefused(pay.id, second.address, () => settle(ctx, pay.id, secondSigned), {
      status: 409,
      reason: 'already_settled',
      paymentStatus: 'settled',
      txHash: ok.body.txHash,
    });
    expect(await ctx.svc.deps.chain.balanceOf(second.address)).toBe(usdc('12.5'));
    expect((await paymentRecord(ctx, pay.id)).tx_hash).toBe(ok.body.txHash);
  });

  it('authorization canceled on-chain by the payer: 409, back to pending, another wallet can pay', async () => {
    const { chain } = ctx.svc.deps;
    const pay = await createPayment(ctx);
    const payer = await customer(ctx, usdc('12.5'), parseEther('0.01'));
    const signed = await authorize(ctx, pay.id, payer);
    // The payer burns this payment's nonce with EIP-3009 cancelAuthorization, from its own wallet.
    const nonce = chain.nonceFor('payment', pay.id);
    const cancelSig = await payer.signTypedData({
      domain: signed.typedData.domain,
      types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] },
      primaryType: 'CancelAuthorization',
      message: { authorizer: payer.address, nonce },
    });
    const wallet = createWalletClient({ account: payer, chain: chain.publicClient.chain, transport: http(chain.rpcUrl) });
    const hash = await wallet.writeContract({
      address: chain.tokenAddress,
      abi: stablecoinAbi,
      functionName: 'cancelAuthorization',
      args: [payer.address, nonce, cancelSig],
    });
    expect((await chain.waitForReceipt(hash)).status).toBe('success');

    const res = await settle(ctx, pay.id, signed);
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body).toMatchObject({ ok: false, reason: 'authorization_canceled' });
    expect((await stored(ctx, pay.id)).status).toBe('pending');
    expect(await chain.balanceOf(payer.address)).toBe(usdc('12.5'));

    const other = await customer(ctx, usdc('12.5'));
    const paid = await settle(ctx, pay.id, await authorize(ctx, pay.id, other));
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(await chain.balanceOf(other.address)).toBe(0n);
  });

  it('failed payment: 409 payment_failed, stays failed', async () => {
    const pay = await createPayment(ctx);
    const payer = await customer(ctx, usdc('12.5'));
    const signed = await authorize(ctx, pay.id, payer);
    const { payments } = ctx.svc.deps;
    await payments.transition(pay.id, 'pending', 'processing', { payer: payer.address });
    await payments.transition(pay.id, 'processing', 'failed', { failureReason: 'test: failed before' });
    await expectRefused(pay.id, payer.address, () => settle(ctx, pay.id, signed), {
      status: 409,
      reason: 'payment_failed',
      paymentStatus: 'failed',
    });
  });
});

describe('settlement: chain unreachable', () => {
  let ctx: Ctx;
  beforeAll(async () => {
    ctx = await setup();
  });
  afterAll(async () => {
    await ctx?.svc.stop({ removeData: true });
  });

  it('answers 503 chain_unavailable and leaves the payment pending', async () => {
    const pay = await createPayment(ctx);
    const payer = await customer(ctx, usdc('12.5'));
    const signed = await authorize(ctx, pay.id, payer);
    await ctx.svc.deps.chain.close(); // the node goes away
    const res = await settle(ctx, pay.id, signed);
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body).toMatchObject({ ok: false, reason: 'chain_unavailable' });
    expect(res.body.error).toMatch(/Nothing was charged/);
    expect((await stored(ctx, pay.id)).status).toBe('pending');
  });
});
