/**
 * The x402 `payment-identifier` extension, with the real packages: @x402/express over our
 * facilitator and a sessions' x402_url, paid by @x402/core's x402Client with @x402/evm, the id
 * added by @x402/extensions' own client helper. The same id and payload from the same payer get
 * the first result (20 at once: one transfer); another payload under a used id is refused (409).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address, PrivateKeyAccount } from 'viem';
import { x402Client, x402HTTPClient, decodePaymentResponseHeader } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client';
import { appendPaymentIdentifierToExtensions, declarePaymentIdentifierExtension, generatePaymentId, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { newPayer, signedRequest, startResourceServer, type ResourceServer } from './helpers.js';

const PRICE = '10000';

let svc: TestService;
let merchant: Merchant;
let shop: ResourceServer;
let payTo: Address;

beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h' });
  merchant = await createMerchant(svc.api, 'Idempotent Co');
  payTo = newPayer().address;
  shop = await startResourceServer(svc, merchant.key, payTo, PRICE, { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) });
});
afterAll(async () => {
  await shop?.close();
  await svc?.stop({ removeData: true });
});

async function funded(amount: bigint) {
  const payer = newPayer();
  expect((await svc.deps.chain.faucet(payer.address, amount, { nativeAmount: 0n })).ok).toBe(true);
  return payer;
}

/** The agent side: the real client signs for the 402 at `url` and adds `id` through the extension's helper. */
async function paymentHeader(signer: PrivateKeyAccount, url: string, id: string, scheme: 'exact' | 'auth-capture' = 'exact'): Promise<string> {
  const network = `eip155:${svc.deps.chain.chainId}` as const;
  const client = x402Client.fromConfig({
    schemes: [{ network, client: scheme === 'exact' ? new ExactEvmScheme(signer) : new AuthCaptureEvmScheme(signer as never) }],
    spendControls: { allowedAssets: [{ network, asset: svc.deps.chain.tokenAddress, maxAmountPerPayment: '100000000' }] },
  });
  client.onBeforePaymentCreation(async (ctx) => {
    ctx.paymentRequired.extensions ??= {};
    appendPaymentIdentifierToExtensions(ctx.paymentRequired.extensions, id);
  });
  const http = new x402HTTPClient(client);
  const unpaid = await fetch(url);
  expect(unpaid.status).toBe(402);
  const required = http.getPaymentRequiredResponse((h) => unpaid.headers.get(h), await unpaid.json());
  expect(required.extensions?.[PAYMENT_IDENTIFIER]).toMatchObject({ info: { required: false } });
  const payload = await client.createPaymentPayload(required);
  expect((payload.extensions?.[PAYMENT_IDENTIFIER] as { info: { id: string } }).info.id).toBe(id);
  return http.encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE']!;
}

const facilitator = (path: string, body: unknown) => call(`${svc.api}/x402/${path}`, { key: merchant.key, body });
const withId = (req: { paymentPayload: Record<string, unknown> }, id: string) => ({
  x402Version: 2,
  ...req,
  paymentPayload: { ...req.paymentPayload, extensions: { [PAYMENT_IDENTIFIER]: { ...declarePaymentIdentifierExtension(false), info: { required: false, id } } } },
});

describe('payment-identifier at our facilitator', () => {
  it('is listed in /supported', async () => {
    const res = await call(`${svc.api}/x402/supported`, { key: merchant.key });
    expect(res.body.extensions).toContain('payment-identifier');
  });

  it('20 retries at once through @x402/express: one transfer, every caller gets the first result; later retries too', async () => {
    const chain = svc.deps.chain;
    const payer = await funded(100_000n);
    const payToBefore = await chain.balanceOf(payTo);
    const header = await paymentHeader(payer, `${shop.url}/weather`, generatePaymentId());
    const results = await Promise.all(Array.from({ length: 20 }, () => fetch(`${shop.url}/weather`, { headers: { 'PAYMENT-SIGNATURE': header } })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const hashes = new Set(results.map((r) => decodePaymentResponseHeader(r.headers.get('payment-response')!).transaction));
    expect(hashes.size).toBe(1);
    // A retry after it all finished: the same answer again (without the identifier: nonce already used, 402).
    const later = await fetch(`${shop.url}/weather`, { headers: { 'PAYMENT-SIGNATURE': header } });
    expect(later.status).toBe(200);
    expect(decodePaymentResponseHeader(later.headers.get('payment-response')!).transaction).toBe([...hashes][0]);
    expect(await chain.balanceOf(payer.address)).toBe(100_000n - BigInt(PRICE));
    expect(await chain.balanceOf(payTo)).toBe(payToBefore + BigInt(PRICE));
  });

  it('refuses another payload under a used identifier (409), answers the same one again, keeps payers apart', async () => {
    const chain = svc.deps.chain;
    const payer = await funded(100_000n);
    const id = generatePaymentId();
    const first = withId(await signedRequest(svc, payer, { payTo, amount: PRICE }), id);
    const settled = await facilitator('settle', first);
    expect(settled.status).toBe(200);
    expect(settled.body.success).toBe(true);
    const again = await facilitator('settle', first);
    expect(again.body).toEqual(settled.body);
    expect((await facilitator('verify', first)).body).toMatchObject({ isValid: true });

    // A fresh authorization (new nonce) under the same id: refused at verify and settle, nothing moves.
    const other = withId(await signedRequest(svc, payer, { payTo, amount: PRICE }), id);
    const v = await facilitator('verify', other);
    expect(v.status).toBe(409);
    expect(v.body).toMatchObject({ isValid: false, invalidReason: 'payment_identifier_conflict' });
    const s = await facilitator('settle', other);
    expect(s.status).toBe(409);
    expect(s.body).toMatchObject({ success: false, errorReason: 'payment_identifier_conflict', transaction: '' });
    expect(await chain.balanceOf(payer.address)).toBe(100_000n - BigInt(PRICE));

    // Another payer's identifier is its own.
    const payer2 = await funded(100_000n);
    const theirs = await facilitator('settle', withId(await signedRequest(svc, payer2, { payTo, amount: PRICE }), id));
    expect(theirs.body.success).toBe(true);
    expect(theirs.body.transaction).not.toBe(settled.body.transaction);

    // A malformed id is refused, not ignored.
    const bad = await facilitator('settle', withId(await signedRequest(svc, payer2, { payTo, amount: PRICE }), 'short'));
    expect(bad.status).toBe(400);
    expect(bad.body.errorReason).toBe('invalid_payment_identifier');
    expect(await chain.balanceOf(payer2.address)).toBe(100_000n - BigInt(PRICE));
  });
});

describe("payment-identifier at a session's x402_url", () => {
  const local = (url: string) => svc.url + new URL(url).pathname;

  it('declares the extension; 20 retries at once settle once; another payload under the id is refused', async () => {
    const created = await call(`${svc.api}/v1/payments`, { key: merchant.key, body: { amount: 1.25, currency: 'USD', redirect_url: 'https://shop.example/done' } });
    expect(created.status).toBe(201);
    const url = local(created.body.x402_url);
    const payer = await funded(10_000_000n);
    const id = generatePaymentId();
    const header = await paymentHeader(payer, url, id);
    const results = await Promise.all(Array.from({ length: 20 }, () => fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const hashes = new Set(results.map((r) => decodePaymentResponseHeader(r.headers.get('payment-response')!).transaction));
    expect(hashes.size).toBe(1);
    const amount = BigInt(created.body.stablecoin_amount_base_units);
    expect(await svc.deps.chain.balanceOf(payer.address)).toBe(10_000_000n - amount);
    expect((await svc.deps.payments.get(created.body.id))?.status).toBe('settled');

    // A new signature with the same id: 409 payment_identifier_conflict (not the generic already_settled).
    const session402 = await fetch(url);
    expect(session402.status).toBe(409);
    const other = await call(url, { headers: { 'PAYMENT-SIGNATURE': await otherPayload(payer, header, id) } });
    expect(other.status).toBe(409);
    expect(other.body.reason).toBe('payment_identifier_conflict');
    expect(await svc.deps.chain.balanceOf(payer.address)).toBe(10_000_000n - amount);
  });
});

describe("payment-identifier at a manual-capture session's x402_url (auth-capture authorize)", () => {
  const local = (url: string) => svc.url + new URL(url).pathname;
  const manual = async () => {
    const created = await call(`${svc.api}/v1/payments`, { key: merchant.key, body: { amount: 2, currency: 'USD', redirect_url: 'https://shop.example/done', capture_method: 'manual' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return { id: created.body.id as string, url: local(created.body.x402_url), payTo: created.body.pay_to as Address };
  };

  it('declares the extension; 20 retries at once hold the money once, one payment.authorized; another payload under the id is 409', async () => {
    const chain = svc.deps.chain;
    const s = await manual();
    const payer = await funded(5_000_000n);
    const id = generatePaymentId();
    const header = await paymentHeader(payer, s.url, id, 'auth-capture');
    const merchantBefore = await chain.balanceOf(s.payTo);
    const results = await Promise.all(Array.from({ length: 20 }, () => fetch(s.url, { headers: { 'PAYMENT-SIGNATURE': header } })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const hashes = new Set(results.map((r) => decodePaymentResponseHeader(r.headers.get('payment-response')!).transaction));
    expect(hashes.size).toBe(1);
    expect(await chain.balanceOf(payer.address)).toBe(3_000_000n);
    expect(await chain.balanceOf(s.payTo)).toBe(merchantBefore); // held, not the merchant's
    const p = (await call(`${svc.api}/v1/payments/${s.id}`, { key: merchant.key })).body;
    expect(p).toMatchObject({ status: 'authorized', amount_capturable: '2' });
    // A later retry: the first answer again.
    const later = await fetch(s.url, { headers: { 'PAYMENT-SIGNATURE': header } });
    expect(later.status).toBe(200);
    expect(decodePaymentResponseHeader(later.headers.get('payment-response')!).transaction).toBe([...hashes][0]);

    // Another authorization (new salt and nonce) under the same id: 409, nothing more held.
    const other = await call(s.url, { headers: { 'PAYMENT-SIGNATURE': await otherPayload(payer, header, id, 'auth-capture') } });
    expect(other.status).toBe(409);
    expect(other.body.reason).toBe('payment_identifier_conflict');
    expect(await chain.balanceOf(payer.address)).toBe(3_000_000n);
    const events = (await call(`${svc.api}/v1/events?payment=${s.id}`, { key: merchant.key })).body.data.map((e: { type: string }) => e.type);
    expect(events).toEqual(['payment.authorized']);
  });

  it('refuses a malformed identifier with 400 and holds nothing', async () => {
    const s = await manual();
    const payer = await funded(2_000_000n);
    const good = await paymentHeader(payer, s.url, generatePaymentId(), 'auth-capture');
    const sent = JSON.parse(Buffer.from(good, 'base64').toString('utf8'));
    sent.extensions[PAYMENT_IDENTIFIER].info.id = 'short';
    const bad = await call(s.url, { headers: { 'PAYMENT-SIGNATURE': Buffer.from(JSON.stringify(sent)).toString('base64') } });
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toBe('invalid_payment_identifier');
    expect(await svc.deps.chain.balanceOf(payer.address)).toBe(2_000_000n);
    expect((await call(`${svc.api}/v1/payments/${s.id}`, { key: merchant.key })).body.status).toBe('pending');
  });
});

/** A second authorization for the same terms (a new nonce) carrying `id`, built from a sent header. */
async function otherPayload(signer: PrivateKeyAccount, header: string, id: string, scheme: 'exact' | 'auth-capture' = 'exact'): Promise<string> {
  const sent = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
  const made = await (scheme === 'exact' ? new ExactEvmScheme(signer) : new AuthCaptureEvmScheme(signer as never)).createPaymentPayload(2, sent.accepted);
  return Buffer.from(JSON.stringify({ ...sent, payload: made.payload, extensions: { ...sent.extensions, [PAYMENT_IDENTIFIER]: { ...sent.extensions[PAYMENT_IDENTIFIER], info: { required: false, id } } } })).toString('base64');
}
