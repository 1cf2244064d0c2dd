/**
 * x402 auth-capture on manual-capture checkout sessions, end to end: real anvil with the vendored
 * escrow placed at start-up, real HTTP, the unmodified @x402/evm AuthCaptureEvmScheme through
 * @x402/fetch. authorize (held in escrow) -> partial capture -> the rest voided back to the payer;
 * authorize -> capture deadline -> automatic void; each state change's event exactly once;
 * /supported lists the scheme; another account's key cannot capture.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address, PrivateKeyAccount } from 'viem';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { authCaptureFetch, newPayer, until } from './helpers.js';
import { AUTH_CAPTURE_V1_0 } from '../../src/chain/auth-capture-escrow.js';

interface Delivery {
  body: { type: string; data: { id: string; status: string } };
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
  svc = await startTestService({ RECONCILE_INTERVAL: '1h', WEBHOOK_RETRY_SCHEDULE: '0,200ms,1s', AUTH_CAPTURE_HOLD: '30s', AUTH_CAPTURE_SWEEP_INTERVAL: '1s' });
  merchant = await createMerchant(svc.api, 'Held Goods');
});

afterAll(async () => {
  await svc?.stop({ removeData: true });
  await new Promise((r) => receiver?.close(r));
});

const local = (url: string) => svc.url + new URL(url).pathname;

const agentFetch = (signer: PrivateKeyAccount, sent?: Headers[]): typeof fetch => authCaptureFetch(signer, svc.deps.chain, sent);


async function manualPayment(amount: number) {
  const res = await call(`${svc.api}/v1/payments`, {
    key: merchant.key,
    body: { amount, currency: 'USD', redirect_url: 'https://shop.example/done', webhook_url: hookUrl, capture_method: 'manual' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; x402_url: string; pay_to: Address };
}

const eventsOf = (id: string) => deliveries.filter((d) => d.body.data.id === id).map((d) => d.body.type);

describe('x402 auth-capture', () => {
  it('is listed by /supported with our operator and the v1.0 escrow', async () => {
    const r = await call(`${svc.api}/x402/supported`, { key: merchant.key });
    const kind = r.body.kinds.find((k: { scheme: string }) => k.scheme === 'auth-capture');
    expect(kind.extra.captureAuthorizer).toBe(svc.deps.chain.relayerAddress);
    expect(kind.extra.authCaptureEscrow).toBe(AUTH_CAPTURE_V1_0.escrow);
    expect(r.body.kinds[0].scheme).toBe('exact');
  });

  it('authorize (held) -> partial capture -> the rest voided back to the payer; events once each', async () => {
    const chain = svc.deps.chain;
    const pay = await manualPayment(2);
    const payer = newPayer();
    expect((await chain.faucet(payer.address, 5_000_000n, { nativeAmount: 0n })).ok).toBe(true);

    const unpaid = await fetch(local(pay.x402_url));
    expect(unpaid.status).toBe(402);
    const [req] = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString()).accepts;
    expect(req.scheme).toBe('auth-capture');
    expect(req.extra.captureAuthorizer).toBe(chain.relayerAddress);

    const sent: Headers[] = [];
    const paid = await agentFetch(payer, sent)(local(pay.x402_url));
    expect(paid.status, await paid.clone().text()).toBe(200);
    const header = sent.map((h) => h.get('payment-signature')).find(Boolean)!;
    const authorizeTx = JSON.parse(Buffer.from(paid.headers.get('payment-response')!, 'base64').toString()).transaction;
    const authorized = (await call(`${svc.api}/v1/payments/${pay.id}`, { key: merchant.key })).body;
    expect(authorized.status).toBe('authorized');
    expect(authorized.amount_capturable).toBe('2');
    expect(await chain.balanceOf(payer.address)).toBe(3_000_000n);
    expect(await chain.balanceOf(pay.pay_to)).toBe(0n); // held, not the merchant's

    // Another account's key cannot touch it.
    const other = await createMerchant(svc.api, 'Other');
    expect((await call(`${svc.api}/v1/payments/${pay.id}/capture`, { key: other.key, body: {} })).status).toBe(404);

    const cap = await call(`${svc.api}/v1/payments/${pay.id}/capture`, { key: merchant.key, body: { amount: 0.75 } });
    expect(cap.status, JSON.stringify(cap.body)).toBe(200);
    expect(cap.body.status).toBe('captured');
    expect(cap.body.amount_captured).toBe('0.75');
    expect(cap.body.amount_capturable).toBe('1.25');
    expect(await chain.balanceOf(pay.pay_to)).toBe(750_000n);

    const v = await call(`${svc.api}/v1/payments/${pay.id}/void`, { key: merchant.key, body: {} });
    expect(v.status, JSON.stringify(v.body)).toBe(200);
    expect(v.body.status).toBe('captured');
    expect(v.body.amount_voided).toBe('1.25');
    expect(await chain.balanceOf(payer.address)).toBe(4_250_000n);
    // Voiding again moves nothing.
    expect((await call(`${svc.api}/v1/payments/${pay.id}/void`, { key: merchant.key, body: {} })).status).toBe(409);
    // The agent sending its payment again gets the same answer and moves nothing.
    const again = await fetch(local(pay.x402_url), { headers: { 'PAYMENT-SIGNATURE': header } });
    expect(again.status, await again.clone().text()).toBe(200);
    expect(JSON.parse(Buffer.from(again.headers.get('payment-response')!, 'base64').toString()).transaction).toBe(authorizeTx);
    expect(await chain.balanceOf(payer.address)).toBe(4_250_000n);
    expect(await chain.balanceOf(pay.pay_to)).toBe(750_000n);

    await until(() => (eventsOf(pay.id).length >= 3 ? true : undefined), 'events');
    await new Promise((r) => setTimeout(r, 500));
    expect(eventsOf(pay.id).sort()).toEqual(['payment.authorized', 'payment.captured', 'payment.voided']);
  });

  it('an authorization not captured by its deadline is voided automatically: the money back in the payer\'s wallet', async () => {
    const chain = svc.deps.chain;
    const pay = await manualPayment(1.5);
    const payer = newPayer();
    expect((await chain.faucet(payer.address, 2_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const merchantBefore = await chain.balanceOf(pay.pay_to);
    const paid = await agentFetch(payer)(local(pay.x402_url));
    expect(paid.status, await paid.clone().text()).toBe(200);
    expect(await chain.balanceOf(payer.address)).toBe(500_000n);

    const voided = await until(async () => {
      const p = (await call(`${svc.api}/v1/payments/${pay.id}`, { key: merchant.key })).body;
      return p.status === 'voided' ? p : undefined;
    }, 'the automatic void', 60_000);
    expect(voided.amount_voided).toBe('1.5');
    expect(await chain.balanceOf(payer.address)).toBe(2_000_000n);
    expect(await chain.balanceOf(pay.pay_to)).toBe(merchantBefore);
    await until(() => (eventsOf(pay.id).length >= 2 ? true : undefined), 'events');
    await new Promise((r) => setTimeout(r, 1500));
    expect(eventsOf(pay.id).sort()).toEqual(['payment.authorized', 'payment.voided']);
  }, 90_000);
});
