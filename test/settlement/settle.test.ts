import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther, type Address, type Hex } from 'viem';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { call } from '../helpers/service.js';
import { authorize, createPayment, customer, merchantWallet, paymentRecord, settle, setup, usdc, type Ctx } from './helpers.js';

describe('settlement: happy path on a real anvil', () => {
  let ctx: Ctx;
  beforeAll(async () => {
    ctx = await setup();
  });
  afterAll(async () => {
    await ctx?.svc.stop({ removeData: true });
  });

  it('settles to the merchant wallet: exact amount moved, the relayer pays the gas', async () => {
    const { chain } = ctx.svc.deps;
    const pay = await createPayment(ctx, { amount: 12.5, currency: 'USD', reference: 'order-42', metadata: { cart: 'c1' } });
    const amount = usdc('12.5');
    // The customer holds some ETH so we can see it is untouched, and exactly the amount due.
    const payer = await customer(ctx, amount, parseEther('0.01'));
    const to = await merchantWallet(ctx);
    const merchantBefore = await chain.balanceOf(to);
    const ethBefore = await chain.nativeBalance(payer.address);
    const relayerEthBefore = await chain.nativeBalance(chain.relayerAddress);

    const signed = await authorize(ctx, pay.id, payer);
    expect(signed.typedData.primaryType).toBe('TransferWithAuthorization');
    expect(signed.typedData.message).toMatchObject({
      from: payer.address,
      to,
      value: amount.toString(),
      validAfter: '0',
      nonce: chain.nonceFor('payment', pay.id),
    });
    const record0 = await paymentRecord(ctx, pay.id);
    expect(signed.typedData.message.validBefore).toBe(String(Math.floor(Date.parse(record0.expires_at) / 1000)));
    expect(signed.typedData.domain).toMatchObject({ chainId: chain.chainId, verifyingContract: chain.tokenAddress });

    const res = await settle(ctx, pay.id, signed);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.payment).toMatchObject({ id: pay.id, status: 'settled', merchantName: 'Acme Books', amount: 12.5, currency: 'USD' });
    expect(res.body.payment).not.toHaveProperty('redirect_url');
    expect(res.body.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const redirect = new URL(res.body.redirect);
    expect(`${redirect.origin}${redirect.pathname}`).toBe('https://shop.example/thanks');
    expect(redirect.searchParams.get('order')).toBe('42');
    expect(redirect.searchParams.get('payment_id')).toBe(pay.id);
    expect(redirect.searchParams.get('status')).toBe('settled');

    // On-chain: exactly the amount moved, from the customer to the merchant.
    expect(await chain.balanceOf(to)).toBe(merchantBefore + amount);
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    expect(await chain.nativeBalance(payer.address)).toBe(ethBefore);
    expect(await chain.nativeBalance(chain.relayerAddress)).toBeLessThan(relayerEthBefore);
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: res.body.txHash as Hex });
    expect(receipt.status).toBe('success');
    expect(receipt.from.toLowerCase()).toBe(chain.relayerAddress.toLowerCase());
    expect(await chain.authorizationState(payer.address, chain.nonceFor('payment', pay.id))).toBe(true);

    // The merchant's record and the public read agree.
    const record = await paymentRecord(ctx, pay.id);
    expect(record).toMatchObject({ status: 'settled', tx_hash: res.body.txHash, payer: payer.address });
    expect(Date.parse(record.settled_at)).not.toBeNaN();
    const read = await call(`${ctx.svc.api}/checkout/${pay.id}`);
    expect(read.body.payment.status).toBe('settled');

    // Nothing more to sign for a settled payment.
    const again = await call(`${ctx.svc.api}/checkout/${pay.id}/authorization`, { body: { from: payer.address } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ ok: false, reason: 'already_settled' });
  });

  it('settles to the payout address with the amount locked at creation (KES)', async () => {
    const { chain } = ctx.svc.deps;
    const payout = privateKeyToAccount(generatePrivateKey()).address as Address;
    const pay = await createPayment(ctx, { amount: 5000, currency: 'KES', payout_address: payout.toLowerCase() });
    const record = await paymentRecord(ctx, pay.id);
    const due = BigInt(record.stablecoin_amount_base_units);
    expect(due).toBe(38_684_720n); // 5000 / 129.25, rounded half up to 6 decimals
    // More than needed: exactly `due` must move, no more.
    const payer = await customer(ctx, due + usdc('1'));

    const signed = await authorize(ctx, pay.id, payer);
    expect(signed.authorization.to).toBe(payout);
    const res = await settle(ctx, pay.id, signed);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await chain.balanceOf(payout)).toBe(due);
    expect(await chain.balanceOf(payer.address)).toBe(usdc('1'));
  });

  it('a customer without any ETH can pay', async () => {
    const { chain } = ctx.svc.deps;
    const pay = await createPayment(ctx, { amount: 3, currency: 'USD' });
    const payer = await customer(ctx, usdc('3'), 0n);
    expect(await chain.nativeBalance(payer.address)).toBe(0n);
    const res = await settle(ctx, pay.id, await authorize(ctx, pay.id, payer));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await chain.nativeBalance(payer.address)).toBe(0n);
    expect(await chain.balanceOf(payer.address)).toBe(0n);
  });

  it('answers 404 for an unknown payment and 400 for malformed input', async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    const unknown = await call(`${ctx.svc.api}/checkout/pay_doesnotexist0000000000/authorization`, { body: { from: payer.address } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ ok: false, reason: 'not_found' });
    expect(unknown.body.error).toMatch(/No such payment/);

    const pay = await createPayment(ctx);
    const badFrom = await call(`${ctx.svc.api}/checkout/${pay.id}/authorization`, { body: { from: 'nope' } });
    expect(badFrom.status).toBe(400);
    expect(badFrom.body).toMatchObject({ ok: false, reason: 'invalid_request' });
    expect(badFrom.body.error).toMatch(/from/);

    const noSig = await call(`${ctx.svc.api}/checkout/${pay.id}/settle`, { body: { authorization: { from: payer.address } } });
    expect(noSig.status).toBe(400);
    expect(noSig.body).toMatchObject({ ok: false, reason: 'invalid_request' });

    const malformed = await call(`${ctx.svc.api}/checkout/${pay.id}/settle`, { body: '{"authorization":' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.ok).toBe(false);

    const { authorization, signature } = await authorize(ctx, pay.id, payer);
    const unknownSettle = await call(`${ctx.svc.api}/checkout/pay_doesnotexist0000000000/settle`, { body: { authorization, signature } });
    expect(unknownSettle.status).toBe(404);
    expect(unknownSettle.body).toMatchObject({ ok: false, reason: 'not_found' });
  });
});
