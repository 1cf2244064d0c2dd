import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, getAddress, http as viemHttp, parseEther, type Address, type PrivateKeyAccount } from 'viem';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import pino from 'pino';
import { Payments } from '../../src/payments/payments.js';
import { SettlementService } from '../../src/settlement/settlement.js';
import { depositWatcherFor } from '../../src/settlement/deposit-watcher-for.js';
import { WebhookEvents } from '../../src/webhooks/outbox.js';
import { call, startTestService } from '../helpers/service.js';
import { startReceiver, type Receiver } from '../webhooks/helpers.js';
import { authorize, createPayment, customer, merchantWallet, paymentRecord, settle, setup, stored, until, usdc, type Ctx } from './helpers.js';

/**
 * Paying a checkout from a phone wallet (issue 15, point 6): a plain ERC-20 `transfer` to the
 * session's deposit address, found by the deposit watcher, swept to the merchant, settled.
 * Real anvil, real HTTP, a loopback webhook receiver.
 */
describe('settlement: deposit addresses (EIP-681 phone-wallet payments)', () => {
  let ctx: Ctx;
  let receiver: Receiver;
  let hookUrl: string;
  type Event = { type: string; data: { id: string; status: string; tx_hash?: string; payer?: string } };
  const received = () => receiver.received.map((r) => r.json as Event);

  beforeAll(async () => {
    receiver = await startReceiver();
    hookUrl = receiver.url;
    // The periodic watcher stays out of the way (one pass at start); each test runs passes itself.
    ctx = await setup({ DEPOSIT_WATCH_INTERVAL: '1h', WEBHOOK_RETRY_SCHEDULE: '0,200ms,1s', SETTLEMENT_CONFIRM_TIMEOUT: '20s' });
  });
  afterAll(async () => {
    await ctx?.svc.stop({ removeData: true });
    await receiver?.close();
  });

  const chain = () => ctx.svc.deps.chain;
  const pass = () => ctx.svc.deps.settlement.deposits.pass();

  async function checkout(id: string): Promise<any> {
    const res = await call(`${ctx.svc.api}/checkout/${id}`);
    expect(res.status).toBe(200);
    return res.body.payment;
  }

  /** What a phone wallet does with the EIP-681 link: a plain `transfer`, gas paid by the sender. */
  async function phoneTransfer(from: PrivateKeyAccount, to: Address, value: bigint): Promise<void> {
    const wallet = createWalletClient({ account: from, chain: chain().publicClient.chain, transport: viemHttp(chain().rpcUrl) });
    const hash = await wallet.writeContract({ address: chain().tokenAddress, abi: stablecoinAbi, functionName: 'transfer', args: [to, value] });
    const receipt = await chain().publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
  }

  const phoneCustomer = (amount: bigint) => customer(ctx, amount, parseEther('0.01'));

  it('the checkout JSON names the deposit address and the EIP-681 link; an exact transfer settles the session once', async () => {
    const pay = await createPayment(ctx, { webhook_url: hookUrl });
    const view = await checkout(pay.id);
    const deposit = getAddress(view.depositAddress);
    expect(view.paymentUri).toBe(`ethereum:${chain().tokenAddress}@${chain().chainId}/transfer?address=${deposit}&uint256=12500000`);
    // The address is the session's own and stays the same on every read.
    expect((await checkout(pay.id)).depositAddress).toBe(view.depositAddress);
    const another = await checkout((await createPayment(ctx)).id);
    expect(another.depositAddress).not.toBe(view.depositAddress);

    const merchant = await merchantWallet(ctx);
    const before = await chain().balanceOf(merchant);
    const payer = await phoneCustomer(usdc('12.5'));
    await phoneTransfer(payer, deposit, usdc('12.5'));

    // Repeated and concurrent passes, also from a second watcher over the same store and chain
    // (what another instance would run): one sweep, one settlement, one event.
    const { store, payments, accounts } = ctx.svc.deps;
    const other = depositWatcherFor(new SettlementService({ store, payments, accounts, chain: chain(), logger: pino({ level: 'silent' }), confirmTimeoutMs: 20_000 }), { store, payments, chain: chain(), logger: pino({ level: 'silent' }) });
    await Promise.all([pass(), pass(), other.pass()]);
    await pass();
    await pass();

    const record = await paymentRecord(ctx, pay.id);
    expect(record).toMatchObject({ status: 'settled', payer: payer.address });
    expect(record.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain().balanceOf(merchant)).toBe(before + usdc('12.5'));
    expect(await chain().balanceOf(deposit)).toBe(0n);
    expect(await chain().balanceOf(payer.address)).toBe(0n);
    const receipt = await chain().publicClient.getTransactionReceipt({ hash: record.tx_hash });
    expect(receipt.status).toBe('success');

    const event = await until(async () => received().find((e) => e.data.id === pay.id), 'the payment.settled delivery');
    expect(event).toMatchObject({ type: 'payment.settled', data: { id: pay.id, status: 'settled', tx_hash: record.tx_hash } });
    const events = await ctx.svc.deps.store.table(WebhookEvents).findMany({ paymentId: pay.id });
    expect(events.map((e) => e.type)).toEqual(['payment.settled']);
    // Settled sessions no longer offer the address.
    expect((await checkout(pay.id)).depositAddress).toBeUndefined();

    // The payer is the phone wallet that sent the transfer: a refund goes back there.
    const refund = await call(`${ctx.svc.api}/v1/payments/${pay.id}/refunds`, { key: ctx.merchant.key, body: {} });
    expect(refund.status, JSON.stringify(refund.body)).toBe(201);
    expect(refund.body).toMatchObject({ status: 'succeeded', to: payer.address });
    expect(await chain().balanceOf(payer.address)).toBe(usdc('12.5'));
  });

  it('money sent to a canceled session goes back to its sender', async () => {
    const pay = await createPayment(ctx);
    const deposit = getAddress((await checkout(pay.id)).depositAddress);
    const cancel = await call(`${ctx.svc.api}/v1/payments/${pay.id}/cancel`, { key: ctx.merchant.key, body: {} });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    const payer = await phoneCustomer(usdc('12.5'));
    await phoneTransfer(payer, deposit, usdc('12.5'));
    await pass();
    await pass();
    expect(await chain().balanceOf(payer.address)).toBe(usdc('12.5'));
    expect(await chain().balanceOf(deposit)).toBe(0n);
    expect((await stored(ctx, pay.id)).status).toBe('canceled');
  });

  it('under-payment stays pending and shows what arrived; a top-up settles it', async () => {
    const pay = await createPayment(ctx);
    const deposit = getAddress((await checkout(pay.id)).depositAddress);
    const merchant = await merchantWallet(ctx);
    const before = await chain().balanceOf(merchant);
    const payer = await phoneCustomer(usdc('12.5'));

    await phoneTransfer(payer, deposit, usdc('5'));
    await pass();
    expect((await stored(ctx, pay.id)).status).toBe('pending');
    const view = await checkout(pay.id);
    expect(view.depositReceived).toBe('5');
    expect(view.paymentUri).toContain(`address=${deposit}&uint256=7500000`);
    expect(await chain().balanceOf(deposit)).toBe(usdc('5'));

    await phoneTransfer(payer, deposit, usdc('7.5'));
    await pass();
    const record = await paymentRecord(ctx, pay.id);
    expect(record).toMatchObject({ status: 'settled', payer: payer.address });
    expect(await chain().balanceOf(merchant)).toBe(before + usdc('12.5'));
    expect(await chain().balanceOf(deposit)).toBe(0n);
  });

  it('over-payment settles: exactly the amount to pay_to, the excess back to the sender', async () => {
    const payTo = getAddress('0x00000000000000000000000000000000000b0b42');
    const pay = await createPayment(ctx, { payout_address: payTo });
    const deposit = getAddress((await checkout(pay.id)).depositAddress);
    const payer = await phoneCustomer(usdc('20'));
    await phoneTransfer(payer, deposit, usdc('15'));
    await pass();
    const record = await paymentRecord(ctx, pay.id);
    expect(record).toMatchObject({ status: 'settled', payer: payer.address, stablecoin_excess: '2.5' });
    expect(await chain().balanceOf(payTo)).toBe(usdc('12.5'));
    expect(await chain().balanceOf(payer.address)).toBe(usdc('7.5'));
    expect(await chain().balanceOf(deposit)).toBe(0n);
  });

  it('money sent to an expired session goes back to its sender, once', async () => {
    const pay = await createPayment(ctx, { webhook_url: hookUrl });
    const deposit = getAddress((await checkout(pay.id)).depositAddress);
    // The session runs out (its expiry moved into the past) before the customer pays.
    await ctx.svc.deps.store.write(Payments, (t) => t.update(pay.id, { expiresAt: new Date(Date.now() - 1_000).toISOString() }));
    await ctx.svc.deps.payments.sweepExpired();
    expect((await stored(ctx, pay.id)).status).toBe('expired');

    const payer = await phoneCustomer(usdc('12.5'));
    const merchant = await merchantWallet(ctx);
    const before = await chain().balanceOf(merchant);
    await phoneTransfer(payer, deposit, usdc('12.5'));
    const { store, payments, accounts } = ctx.svc.deps;
    const other = depositWatcherFor(new SettlementService({ store, payments, accounts, chain: chain(), logger: pino({ level: 'silent' }), confirmTimeoutMs: 20_000 }), { store, payments, chain: chain(), logger: pino({ level: 'silent' }) });
    await Promise.all([pass(), pass(), other.pass()]);
    await pass();

    expect(await chain().balanceOf(payer.address)).toBe(usdc('12.5'));
    expect(await chain().balanceOf(deposit)).toBe(0n);
    expect(await chain().balanceOf(merchant)).toBe(before);
    expect((await stored(ctx, pay.id)).status).toBe('expired');
    const d = await ctx.svc.deps.settlement.deposits.get(pay.id);
    expect(d?.transfers).toHaveLength(1);
    expect(d?.transfers[0]).toMatchObject({ use: 'refund', from: payer.address, value: '12500000' });
    expect(d?.transfers[0]?.refundTxHash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('a deposit to a session already paid through the signed path goes back to its sender', async () => {
    const pay = await createPayment(ctx);
    const deposit = getAddress((await checkout(pay.id)).depositAddress);
    const signer = await customer(ctx, usdc('12.5'));
    const paid = await settle(ctx, pay.id, await authorize(ctx, pay.id, signer));
    expect(paid.status).toBe(200);

    const phone = await phoneCustomer(usdc('12.5'));
    await phoneTransfer(phone, deposit, usdc('12.5'));
    await pass();
    await pass();
    expect(await chain().balanceOf(phone.address)).toBe(usdc('12.5'));
    expect(await chain().balanceOf(deposit)).toBe(0n);
    const record = await paymentRecord(ctx, pay.id);
    expect(record).toMatchObject({ status: 'settled', payer: signer.address, tx_hash: paid.body.txHash });
  });
});

describe('settlement: a deposit sweep interrupted by a restart', () => {
  let ctx: Ctx;
  const SHORT = { SETTLEMENT_CONFIRM_TIMEOUT: '300ms', DEPOSIT_WATCH_INTERVAL: '1h' };
  beforeAll(async () => {
    ctx = await setup(SHORT);
  });
  afterAll(async () => {
    await ctx?.svc.stop({ removeData: true });
  });

  it('the sweep was lost with the node: after the restart it is finished once and the session settles', async () => {
    const { chain } = ctx.svc.deps;
    const pay = await createPayment(ctx);
    const view = (await call(`${ctx.svc.api}/checkout/${pay.id}`)).body.payment;
    const deposit = getAddress(view.depositAddress);
    const payer = await customer(ctx, usdc('12.5'), parseEther('0.01'));
    const wallet = createWalletClient({ account: payer, chain: chain.publicClient.chain, transport: viemHttp(chain.rpcUrl) });
    const hash = await wallet.writeContract({ address: chain.tokenAddress, abi: stablecoinAbi, functionName: 'transfer', args: [deposit, usdc('12.5')] });
    await chain.publicClient.waitForTransactionReceipt({ hash });
    const merchant = await merchantWallet(ctx);
    const before = await chain.balanceOf(merchant);

    // The sweep is signed, journaled and sent, but not mined before the process goes away.
    await chain.publicClient.request({ method: 'evm_setAutomine' as never, params: [false] as never });
    await ctx.svc.deps.settlement.deposits.pass();
    expect(await stored(ctx, pay.id)).toMatchObject({ status: 'processing', viaDeposit: true });
    const { dataDir } = ctx.svc;
    await ctx.svc.stop();
    // anvil loses its pool on restart; the relay journal re-broadcasts, the start-up pass finishes.
    ctx = { ...ctx, svc: await startTestService({ NODE_ENV: 'test', RECONCILE_INTERVAL: '1h', ...SHORT }, { dataDir }) };
    await until(async () => {
      await ctx.svc.deps.settlement.deposits.pass();
      return (await stored(ctx, pay.id)).status === 'settled';
    }, 'the deposit watcher to finish the sweep');
    await ctx.svc.deps.settlement.deposits.pass();
    const record = await paymentRecord(ctx, pay.id);
    expect(record).toMatchObject({ status: 'settled', payer: payer.address });
    expect(await ctx.svc.deps.chain.balanceOf(merchant)).toBe(before + usdc('12.5'));
    expect(await ctx.svc.deps.chain.balanceOf(deposit)).toBe(0n);
    const events = await ctx.svc.deps.store.table(WebhookEvents).findMany({ paymentId: pay.id });
    expect(events.map((e) => e.type)).toEqual(['payment.settled']);
  });
});
