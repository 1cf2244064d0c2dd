import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, http as viemHttp, parseEther, parseGwei, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { WebhookEvents } from '../../src/webhooks/outbox.js';
import {
  anvil,
  authorize,
  createPayment,
  customer,
  merchantWallet,
  paymentRecord,
  settle,
  setup,
  stored,
  until,
  usdc,
  type Ctx,
} from './helpers.js';

interface Received {
  type: string;
  data: { id: string; status: string; tx_hash?: string; failure_reason?: string; metadata: Record<string, unknown> };
}

/**
 * payment.settled comes from the real cause, a mined transfer. A transfer that reverts because the
 * payer spent its balance before inclusion is not a failed payment (docs/settlement.md, "A revert
 * for a spent balance"): the payment is open again (402), no payment.failed, and the same
 * authorization pays once the wallet is funded.
 */
describe('settlement: webhook events from real chain outcomes', () => {
  let ctx: Ctx;
  let receiver: http.Server;
  let hookUrl: string;
  const received: Received[] = [];

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    ctx = await setup({ WEBHOOK_RETRY_SCHEDULE: '0,200ms,1s', SETTLEMENT_CONFIRM_TIMEOUT: '20s' });
  });
  afterAll(async () => {
    await anvil(ctx, 'evm_setAutomine', [true]).catch(() => {});
    await ctx?.svc.stop({ removeData: true });
    await new Promise((r) => receiver?.close(r));
  });

  const eventsFor = (paymentId: string) => ctx.svc.deps.store.table(WebhookEvents).findMany({ paymentId });

  it('payment.settled carries the transaction; a double submit produces one event', async () => {
    const pay = await createPayment(ctx, { webhook_url: hookUrl, metadata: { order: 'A-1' } });
    const payer = await customer(ctx, usdc('12.5'));
    const signed = await authorize(ctx, pay.id, payer);
    const [a, b] = await Promise.all([settle(ctx, pay.id, signed), settle(ctx, pay.id, signed)]);
    expect([a.status, b.status]).toEqual([200, 200]);

    const event = await until(async () => received.find((e) => e.data.id === pay.id), 'the payment.settled delivery');
    expect(event).toMatchObject({
      type: 'payment.settled',
      data: { id: pay.id, status: 'settled', tx_hash: a.body.txHash, metadata: { order: 'A-1' } },
    });
    const stored = await eventsFor(pay.id);
    expect(stored.map((e) => e.type)).toEqual(['payment.settled']);
  });

  it('a transfer that reverts because the payer spent its balance: 402 insufficient_balance, payment pending, no payment.failed; funded, the same authorization pays', async () => {
    const { chain } = ctx.svc.deps;
    const pay = await createPayment(ctx, { webhook_url: hookUrl });
    const to = await merchantWallet(ctx);
    const before = await chain.balanceOf(to);
    // The customer has gas money so it can move its tokens itself, racing our relayed transfer.
    const payer = await customer(ctx, usdc('12.5'), parseEther('1'));
    const signed = await authorize(ctx, pay.id, payer);

    await anvil(ctx, 'evm_setAutomine', [false]);
    const settling = settle(ctx, pay.id, signed);
    const relayed = await until(async () => (await stored(ctx, pay.id)).txHash as Hex | undefined, 'the relayed transaction');

    // In the same block, ahead of ours (higher tip), the customer spends the balance elsewhere.
    const elsewhere = privateKeyToAccount(generatePrivateKey()).address;
    const wallet = createWalletClient({ account: payer, chain: chain.publicClient.chain, transport: viemHttp(chain.rpcUrl) });
    await wallet.writeContract({
      address: chain.tokenAddress,
      abi: stablecoinAbi,
      functionName: 'transfer',
      args: [elsewhere, usdc('12.5')],
      gas: 100_000n,
      maxPriorityFeePerGas: parseGwei('500'),
      maxFeePerGas: parseGwei('1000'),
    });
    await anvil(ctx, 'evm_mine');
    await anvil(ctx, 'evm_setAutomine', [true]);

    const res = await settling;
    expect(res.status, JSON.stringify(res.body)).toBe(402);
    expect(res.body).toMatchObject({ ok: false, reason: 'insufficient_balance' });
    expect(res.body.redirect).toBeUndefined();
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: relayed });
    expect(receipt.status).toBe('reverted');

    const record = await paymentRecord(ctx, pay.id);
    expect(record.status).toBe('pending');
    expect(record.failure_reason ?? null).toBeNull();
    expect(await chain.balanceOf(to)).toBe(before);
    expect(await chain.balanceOf(elsewhere)).toBe(usdc('12.5'));
    expect((await eventsFor(pay.id)).map((e) => e.type)).toEqual([]);

    // Funded again, the same signed authorization (its nonce was never used) pays the payment once.
    expect((await chain.faucet(payer.address, usdc('12.5'), { nativeAmount: 0n })).ok).toBe(true);
    const again = await settle(ctx, pay.id, signed);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await chain.balanceOf(to)).toBe(before + usdc('12.5'));
    const event = await until(async () => received.find((e) => e.data.id === pay.id), 'the payment.settled delivery');
    expect(event).toMatchObject({ type: 'payment.settled', data: { id: pay.id, status: 'settled', tx_hash: again.body.txHash } });
    expect((await eventsFor(pay.id)).map((e) => e.type)).toEqual(['payment.settled']);
    expect(received.filter((e) => e.data.id === pay.id && e.type === 'payment.failed')).toEqual([]);
  });
});
