/**
 * Every payment session is payable by an agent: @x402/fetch pays a payment created through
 * POST /api/v1/payments at its `x402_url`, on the embedded chain, and the merchant's receiver
 * gets the signed payment.settled event. Expired, settled and unknown sessions move nothing.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { decodePaymentResponseHeader } from '@x402/fetch';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { verifyWebhookSignature } from '../../src/webhooks/verify.js';
import { newPayer, payingFetch } from './helpers.js';

interface Delivery {
  raw: string;
  signature: string;
  body: { type: string; data: { id: string; status: string; tx_hash?: string } };
}

let svc: TestService;
let merchant: Merchant;
let receiver: http.Server;
let hookUrl: string;
let secret: string;
const deliveries: Delivery[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      deliveries.push({ raw, signature: String(req.headers['service-signature'] ?? ''), body: JSON.parse(raw) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  svc = await startTestService({ RECONCILE_INTERVAL: '1h', WEBHOOK_RETRY_SCHEDULE: '0,200ms,1s' });
  merchant = await createMerchant(svc.api, 'Agent Shop');
  const s = await call(`${svc.api}/webhook-secret`, { key: merchant.key, body: {} });
  expect(s.status).toBe(200);
  secret = s.body.secret;
});

afterAll(async () => {
  await svc?.stop({ removeData: true });
  await new Promise((r) => receiver?.close(r));
});

async function createPayment(body: Record<string, unknown> = {}) {
  const res = await call(`${svc.api}/v1/payments`, {
    key: merchant.key,
    body: { amount: 2.5, currency: 'USD', redirect_url: 'https://shop.example/done', webhook_url: hookUrl, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; x402_url: string; pay_to: string; stablecoin_amount_base_units: string; expires_at: string };
}

async function funded(amount: bigint) {
  const payer = newPayer();
  const r = await svc.deps.chain.faucet(payer.address, amount, { nativeAmount: 0n });
  expect(r.ok).toBe(true);
  return payer;
}

/** The service's own address for a URL it published (PUBLIC_URL says localhost). */
const local = (url: string) => svc.url + new URL(url).pathname;

async function until<T>(fn: () => T | undefined, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('x402_url: a payment session an agent can pay', () => {
  it('answers 402 with the session terms; @x402/fetch pays it and the session settles like from the hosted page', async () => {
    const chain = svc.deps.chain;
    const pay = await createPayment({ metadata: { order: 'X-1' } });
    expect(pay.x402_url).toBe(`${svc.deps.config.PUBLIC_URL}/api/checkout/${pay.id}/x402`);

    const unpaid = await fetch(local(pay.x402_url));
    expect(unpaid.status).toBe(402);
    const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString());
    expect(required.x402Version).toBe(2);
    const [req] = required.accepts;
    expect(req).toMatchObject({
      scheme: 'exact',
      network: `eip155:${chain.chainId}`,
      amount: pay.stablecoin_amount_base_units,
      asset: chain.tokenAddress,
      payTo: pay.pay_to,
      extra: { name: chain.eip712Domain.name, version: chain.eip712Domain.version },
    });
    expect(Date.now() / 1000 + req.maxTimeoutSeconds).toBeLessThanOrEqual(Date.parse(pay.expires_at) / 1000);

    const payer = await funded(10_000_000n);
    const before = { payer: await chain.balanceOf(payer.address), payTo: await chain.balanceOf(pay.pay_to as Hex) };
    const { fetch: agentFetch } = payingFetch(payer, svc);
    const res = await agentFetch(local(pay.x402_url));
    expect(res.status).toBe(200);
    const settled = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settled).toMatchObject({ success: true, network: `eip155:${chain.chainId}` });
    expect(settled.payer?.toLowerCase()).toBe(payer.address.toLowerCase());

    const amount = BigInt(pay.stablecoin_amount_base_units);
    expect(await chain.balanceOf(payer.address)).toBe(before.payer - amount);
    expect(await chain.balanceOf(pay.pay_to as Hex)).toBe(before.payTo + amount);
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: settled.transaction as Hex });
    expect(receipt.from.toLowerCase()).toBe(chain.relayerAddress.toLowerCase());

    const record = await call(`${svc.api}/v1/payments/${pay.id}`, { key: merchant.key });
    expect(record.body).toMatchObject({ status: 'settled', tx_hash: settled.transaction });

    const event = await until(() => deliveries.find((d) => d.body.data.id === pay.id), 'the payment.settled delivery');
    expect(event.body).toMatchObject({ type: 'payment.settled', data: { id: pay.id, status: 'settled', tx_hash: settled.transaction } });
    expect(verifyWebhookSignature(event.raw, event.signature, secret)).toBe(true);

    // Settled now: asking again says so, and the same signed payment sent again moves nothing.
    const again = await call(local(pay.x402_url));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ ok: false, reason: 'already_settled' });
    const second = await payingFetch(payer, svc).fetch(local(pay.x402_url));
    expect(second.status).toBe(409);
    expect(await chain.balanceOf(payer.address)).toBe(before.payer - amount);
    expect(deliveries.filter((d) => d.body.data.id === pay.id)).toHaveLength(1);
  });

  it('answers an unknown session 404 and an expired one 410; nothing moves', async () => {
    const unknown = await call(`${svc.api}/checkout/pay_nope/x402`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ ok: false, reason: 'not_found' });

    const pay = await createPayment({ expires_in_minutes: 1 });
    const p = await svc.deps.payments.get(pay.id);
    // Past its expiry (as the clock would have it a minute later).
    await svc.deps.store.write((await import('../../src/payments/payments.js')).Payments, (t) =>
      t.update(pay.id, { expiresAt: new Date(Date.now() - 1000).toISOString() }),
    );
    expect(p?.status).toBe('pending');
    const url = local(pay.x402_url);
    const expired = await call(url);
    expect(expired.status).toBe(410);
    expect(expired.body).toMatchObject({ ok: false, reason: 'expired' });

    const payer = await funded(10_000_000n);
    const res = await payingFetch(payer, svc).fetch(url);
    expect(res.status).toBe(410);
    expect(await svc.deps.chain.balanceOf(payer.address)).toBe(10_000_000n);
  });

  it('answers a session the merchant canceled 409 canceled, also to a payment signed before the cancel; nothing moves', async () => {
    const chain = svc.deps.chain;
    const pay = await createPayment();
    const url = local(pay.x402_url);
    const required = JSON.parse(Buffer.from((await fetch(url)).headers.get('payment-required')!, 'base64').toString());
    const payer = await funded(10_000_000n);
    const { ExactEvmScheme } = await import('@x402/evm/exact/client');
    const accepted = required.accepts[0];
    // The agent signed while the session was open ...
    const made = await new ExactEvmScheme(payer).createPaymentPayload(2, accepted);
    const header = Buffer.from(JSON.stringify({ ...made, accepted, resource: required.resource })).toString('base64');
    const payToBefore = await chain.balanceOf(pay.pay_to as Hex);

    // ... and the merchant called it off before the agent sent it.
    const canceled = await call(`${svc.api}/v1/payments/${pay.id}/cancel`, { method: 'POST', key: merchant.key });
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);

    const ask = await call(url);
    expect(ask.status).toBe(409);
    expect(ask.body).toMatchObject({ ok: false, reason: 'canceled' });
    const late = await call(url, { headers: { 'PAYMENT-SIGNATURE': header } });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ ok: false, reason: 'canceled' });
    expect(late.headers.get('payment-response')).toBeNull();
    const agent = await payingFetch(payer, svc).fetch(url);
    expect(agent.status).toBe(409);

    expect(await chain.balanceOf(payer.address)).toBe(10_000_000n);
    expect(await chain.balanceOf(pay.pay_to as Hex)).toBe(payToBefore);
    const nonce = (made.payload as { authorization: { nonce: Hex } }).authorization.nonce;
    expect(await chain.authorizationState(payer.address, nonce)).toBe(false);
    expect((await svc.deps.payments.get(pay.id))?.status).toBe('canceled');
  });

  it('refuses an authorization for another amount or one outliving the session; nothing moves', async () => {
    const pay = await createPayment();
    const url = local(pay.x402_url);
    const required = JSON.parse(Buffer.from((await fetch(url)).headers.get('payment-required')!, 'base64').toString());
    const payer = await funded(10_000_000n);
    const { ExactEvmScheme } = await import('@x402/evm/exact/client');
    const scheme = new ExactEvmScheme(payer);
    for (const tamper of [
      (r: any) => ({ ...r, amount: String(BigInt(r.amount) - 1n) }),
      (r: any) => ({ ...r, maxTimeoutSeconds: 7200 }),
    ]) {
      const accepted = tamper(required.accepts[0]);
      const made = await scheme.createPaymentPayload(2, accepted);
      const header = Buffer.from(JSON.stringify({ ...made, accepted, resource: required.resource })).toString('base64');
      const res = await call(url, { headers: { 'PAYMENT-SIGNATURE': header } });
      expect(res.status).toBe(402);
      expect(['invalid_exact_evm_payload_authorization_value', 'wrong_validity']).toContain(res.body.reason);
    }
    expect(await svc.deps.chain.balanceOf(payer.address)).toBe(10_000_000n);
    expect((await svc.deps.payments.get(pay.id))?.status).toBe('pending');
  });

  it('settles once when the same signed payment arrives 10 times at once; every answer names the one transaction', async () => {
    const pay = await createPayment();
    const url = local(pay.x402_url);
    const required = JSON.parse(Buffer.from((await fetch(url)).headers.get('payment-required')!, 'base64').toString());
    const payer = await funded(10_000_000n);
    const { ExactEvmScheme } = await import('@x402/evm/exact/client');
    const accepted = required.accepts[0];
    const made = await new ExactEvmScheme(payer).createPaymentPayload(2, accepted);
    const header = Buffer.from(JSON.stringify({ ...made, accepted, resource: required.resource })).toString('base64');
    const results = await Promise.all(Array.from({ length: 10 }, () => fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } })));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const hashes = new Set(results.map((r) => decodePaymentResponseHeader(r.headers.get('payment-response')!).transaction));
    expect(hashes.size).toBe(1);
    expect(await svc.deps.chain.balanceOf(payer.address)).toBe(10_000_000n - BigInt(pay.stablecoin_amount_base_units));
    const event = await until(() => deliveries.find((d) => d.body.data.id === pay.id), 'the payment.settled delivery');
    expect(event.body.data.tx_hash).toBe([...hashes][0]);
  });
});
