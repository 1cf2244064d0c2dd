/**
 * Refunds of x402-paid payments through the refunds API (docs/refunds.md, docs/x402.md "Refunds"),
 * end to end: real anvil (escrow and OperatorRefundCollector placed at start-up), real HTTP, the
 * unmodified @x402/fetch + @x402/evm clients paying.
 *
 * - `exact`: a session paid at its x402_url is refunded in part and then in full like a hosted one.
 * - `auth-capture`: authorize 2.00 -> capture 0.75 -> refund 0.25 and 0.50 of the captured part
 *   through the escrow (funded from the merchant's wallet, the operator's balance untouched) -> a
 *   refund beyond the captured part refused -> void returns the 1.25 still held; balances on chain
 *   for payer, merchant and operator; every event once; another account's key gets 404.
 * - past the escrow's refund deadline a refund is refused with its own reason, nothing moves.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { authCaptureFetch, newPayer, payingFetch, until } from './helpers.js';
import { AUTH_CAPTURE_V1_0, authCaptureEscrowAbi } from '../../src/chain/auth-capture-escrow.js';

interface Delivery {
  body: { type: string; data: { id: string; status: string; refund?: { id: string } } };
}

let svc: TestService;
let merchant: Merchant;
let receiver: http.Server;
let hookUrl: string;
const deliveries: Delivery[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      deliveries.push({ body: JSON.parse(raw) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  svc = await startTestService({ RECONCILE_INTERVAL: '1h', WEBHOOK_RETRY_SCHEDULE: '0,200ms,1s', AUTH_CAPTURE_HOLD: '10m' });
  merchant = await createMerchant(svc.api, 'Refund Goods');
});

afterAll(async () => {
  await svc?.stop({ removeData: true });
  await new Promise((r) => receiver?.close(r));
});

const local = (url: string) => svc.url + new URL(url).pathname;



async function payment(amount: number, manual: boolean) {
  const res = await call(`${svc.api}/v1/payments`, {
    key: merchant.key,
    body: { amount, currency: 'USD', redirect_url: 'https://shop.example/done', webhook_url: hookUrl, ...(manual ? { capture_method: 'manual' } : {}) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; x402_url: string; pay_to: Address };
}

const refund = (id: string, body: object, key = merchant.key) => call(`${svc.api}/v1/payments/${id}/refunds`, { key, body });
const eventsOf = (id: string) => deliveries.filter((d) => d.body.data.id === id).map((d) => d.body.type);
/** Waits for `n` events of the payment, then a little longer: a duplicate would show. */
async function settledEvents(id: string, n: number): Promise<string[]> {
  await until(() => (eventsOf(id).length >= n ? true : undefined), `${n} events`);
  await new Promise((r) => setTimeout(r, 600));
  return eventsOf(id).sort();
}

describe('refunds of x402-paid payments', () => {
  it('exact: a session paid by an agent is refunded in part, then in full, to the payer', async () => {
    const chain = svc.deps.chain;
    const pay = await payment(2, false);
    const payer = newPayer();
    expect((await chain.faucet(payer.address, 3_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const paid = await payingFetch(payer, svc).fetch(local(pay.x402_url));
    expect(paid.status, await paid.clone().text()).toBe(200);
    expect(await chain.balanceOf(payer.address)).toBe(1_000_000n);
    const merchantPaid = await chain.balanceOf(pay.pay_to);

    const other = await createMerchant(svc.api, 'Someone Else');
    expect((await refund(pay.id, { amount: 0.5 }, other.key)).status).toBe(404);

    const part = await refund(pay.id, { amount: 0.5, reason: 'one item missing' });
    expect(part.status, JSON.stringify(part.body)).toBe(201);
    expect(part.body).toMatchObject({ status: 'succeeded', amount: 0.5, stablecoin_amount_base_units: '500000', to: payer.address });
    expect(await chain.balanceOf(payer.address)).toBe(1_500_000n);
    const rest = await refund(pay.id, {});
    expect(rest.body).toMatchObject({ status: 'succeeded', amount: 1.5, stablecoin_amount_base_units: '1500000' });
    expect(await chain.balanceOf(payer.address)).toBe(3_000_000n);
    expect(await chain.balanceOf(pay.pay_to)).toBe(merchantPaid - 2_000_000n);
    const p = (await call(`${svc.api}/v1/payments/${pay.id}`, { key: merchant.key })).body;
    expect(p.status).toBe('refunded');
    expect((await refund(pay.id, { amount: 0.01 })).status).toBe(400);

    expect(await settledEvents(pay.id, 4)).toEqual(['payment.refunded', 'payment.settled', 'refund.succeeded', 'refund.succeeded']);
  });

  it('auth-capture: authorize -> partial capture -> refund of the captured part via the escrow -> the rest returned at void', async () => {
    const chain = svc.deps.chain;
    const operator = chain.relayerAddress;
    const pay = await payment(2, true);
    const payer = newPayer();
    expect((await chain.faucet(payer.address, 5_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const operatorBefore = await chain.balanceOf(operator);

    // Nothing captured yet: a refund is refused and points at void.
    const paid = await authCaptureFetch(payer, svc.deps.chain)(local(pay.x402_url));
    expect(paid.status, await paid.clone().text()).toBe(200);
    const early = await refund(pay.id, {});
    expect(early.status).toBe(400);
    expect(early.body.error.message).toMatch(/void/);

    const cap = await call(`${svc.api}/v1/payments/${pay.id}/capture`, { key: merchant.key, body: { amount: 0.75 } });
    expect(cap.status, JSON.stringify(cap.body)).toBe(200);
    expect(await chain.balanceOf(pay.pay_to)).toBe(750_000n);
    expect(await chain.balanceOf(payer.address)).toBe(3_000_000n);

    // Another account's key: 404, nothing moves.
    const other = await createMerchant(svc.api, 'Not The Merchant');
    expect((await refund(pay.id, { amount: 0.25 }, other.key)).status).toBe(404);

    const idem = { 'Idempotency-Key': `refund-${pay.id}` };
    const first = await call(`${svc.api}/v1/payments/${pay.id}/refunds`, { key: merchant.key, body: { amount: 0.25 }, headers: idem });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ status: 'succeeded', amount: 0.25, stablecoin_amount_base_units: '250000', from: pay.pay_to, to: payer.address });
    expect(await chain.balanceOf(payer.address)).toBe(3_250_000n);
    expect(await chain.balanceOf(pay.pay_to)).toBe(500_000n);
    expect(await chain.balanceOf(operator)).toBe(operatorBefore);
    // The same request again (a client retry) replays the first refund; nothing moves twice.
    const replay = await call(`${svc.api}/v1/payments/${pay.id}/refunds`, { key: merchant.key, body: { amount: 0.25 }, headers: idem });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    expect(await chain.balanceOf(payer.address)).toBe(3_250_000n);

    // More than was captured: the held part is not refunded; void releases it.
    const over = await refund(pay.id, { amount: 1 });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toMatch(/at most 0\.5 USD.*captured.*void/s);

    const second = await refund(pay.id, {}, merchant.key);
    expect(second.body).toMatchObject({ status: 'succeeded', amount: 0.5, stablecoin_amount_base_units: '500000' });
    expect(await chain.balanceOf(payer.address)).toBe(3_750_000n);
    expect(await chain.balanceOf(pay.pay_to)).toBe(0n);
    expect(await chain.balanceOf(operator)).toBe(operatorBefore);
    let p = (await call(`${svc.api}/v1/payments/${pay.id}`, { key: merchant.key })).body;
    expect(p).toMatchObject({ status: 'captured', amount_captured: '0.75', amount_capturable: '1.25', amount_refunded: 0.75 });
    const hash = (await svc.deps.payments.get(pay.id))!.paymentInfoHash as `0x${string}`;
    const [, , refundable] = (await chain.publicClient.readContract({
      address: AUTH_CAPTURE_V1_0.escrow,
      abi: authCaptureEscrowAbi,
      functionName: 'paymentState',
      args: [hash],
    })) as readonly [boolean, bigint, bigint];
    expect(refundable).toBe(0n);
    expect((await refund(pay.id, { amount: 0.01 })).status).toBe(400);

    const v = await call(`${svc.api}/v1/payments/${pay.id}/void`, { key: merchant.key, body: {} });
    expect(v.status, JSON.stringify(v.body)).toBe(200);
    expect(await chain.balanceOf(payer.address)).toBe(5_000_000n);
    expect(await chain.balanceOf(operator)).toBe(operatorBefore);
    p = (await call(`${svc.api}/v1/payments/${pay.id}`, { key: merchant.key })).body;
    expect(p).toMatchObject({ status: 'refunded', amount_voided: '1.25', amount_refunded: 0.75 });
    const list = (await call(`${svc.api}/v1/payments/${pay.id}/refunds`, { key: merchant.key })).body;
    expect(list.data.map((r: { status: string }) => r.status)).toEqual(['succeeded', 'succeeded']);

    const events = await settledEvents(pay.id, 6);
    expect(events).toEqual(['payment.authorized', 'payment.captured', 'payment.refunded', 'payment.voided', 'refund.succeeded', 'refund.succeeded']);
    const refundIds = deliveries.filter((d) => d.body.data.id === pay.id && d.body.type === 'refund.succeeded').map((d) => d.body.data.refund!.id);
    expect(new Set(refundIds)).toEqual(new Set([first.body.id, second.body.id]));
  });
});

describe('a manual capture past its refund deadline', () => {
  let late: TestService;
  let shop: Merchant;
  beforeAll(async () => {
    // Refund deadline = capture deadline (60 s) + 1 s: inside the two minutes a refund needs.
    late = await startTestService({ RECONCILE_INTERVAL: '1h', AUTH_CAPTURE_HOLD: '60s', AUTH_CAPTURE_REFUND_WINDOW: '1s' });
    shop = await createMerchant(late.api, 'Late Refunds');
  });
  afterAll(async () => {
    await late?.stop({ removeData: true });
  });

  it('refuses the refund with its own reason and moves nothing', async () => {
    const chain = late.deps.chain;
    const res = await call(`${late.api}/v1/payments`, { key: shop.key, body: { amount: 1, currency: 'USD', redirect_url: 'https://shop.example/done', capture_method: 'manual' } });
    const pay = res.body as { id: string; x402_url: string; pay_to: Address };
    const payer = newPayer();
    expect((await chain.faucet(payer.address, 1_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const paid = await authCaptureFetch(payer, chain)(late.url + new URL(pay.x402_url).pathname);
    expect(paid.status, await paid.clone().text()).toBe(200);
    expect((await call(`${late.api}/v1/payments/${pay.id}/capture`, { key: shop.key, body: {} })).status).toBe(200);
    expect(await chain.balanceOf(pay.pay_to)).toBe(1_000_000n);

    const r = await call(`${late.api}/v1/payments/${pay.id}/refunds`, { key: shop.key, body: {} });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/refund deadline of this payment \(.*\) has passed/);
    expect(await chain.balanceOf(pay.pay_to)).toBe(1_000_000n);
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    expect((await call(`${late.api}/v1/payments/${pay.id}/refunds`, { key: shop.key })).body.data).toEqual([]);
  });
});
