/**
 * The bazaar discovery listing read by the extension's own client (`withBazaar` over
 * @x402/core's HTTPFacilitatorClient): sessions created `discoverable: true` are listed while
 * payable, paginated, filtered; each listed resource answers 402 with the bazaar metadata, which
 * the extension's facilitator-side `extractDiscoveryInfo` accepts from a real client's payload.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { x402Client, x402HTTPClient } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { withBazaar, extractDiscoveryInfo, validateDiscoveryExtension } from '@x402/extensions/bazaar';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { authCaptureFetch, newPayer, payingFetch } from './helpers.js';

let svc: TestService;
let merchant: Merchant;

beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h' });
  merchant = await createMerchant(svc.api, 'Agent Goods');
});
afterAll(async () => {
  await svc?.stop({ removeData: true });
});

async function createPayment(body: Record<string, unknown>) {
  const res = await call(`${svc.api}/v1/payments`, { key: merchant.key, body: { amount: 1.5, currency: 'USD', redirect_url: 'https://shop.example/done', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; x402_url: string; pay_to: string; discoverable: boolean };
}

/** The service's own address for a URL it published (PUBLIC_URL says localhost). */
const local = (url: string) => svc.url + new URL(url).pathname;
const bazaar = () => withBazaar(new HTTPFacilitatorClient({ url: `${svc.api}/x402` })).extensions.bazaar;

describe('bazaar discovery listing', () => {
  it('lists discoverable sessions only, paginated, with the 402 each answers; a paid one leaves the list', async () => {
    const hidden = await createPayment({ description: 'not listed' });
    const a = await createPayment({ description: 'Sticker pack', discoverable: true });
    const b = await createPayment({ description: 'Poster', discoverable: true, payout_address: newPayer().address });
    expect([hidden.discoverable, a.discoverable, b.discoverable]).toEqual([false, true, true]);

    const all = await bazaar().listResources();
    expect(all.x402Version).toBe(2);
    expect(all.pagination).toEqual({ limit: 20, offset: 0, total: 2 });
    expect(all.items.map((i) => i.resource)).toEqual([b.x402_url, a.x402_url]); // newest first
    const page1 = await bazaar().listResources({ limit: 1 });
    const page2 = await bazaar().listResources({ limit: 1, offset: 1 });
    expect([page1.items[0]!.resource, page2.items[0]!.resource]).toEqual([b.x402_url, a.x402_url]);
    expect(page2.pagination).toEqual({ limit: 1, offset: 1, total: 2 });
    // The extension's filters.
    expect((await bazaar().listResources({ type: 'mcp' })).items).toEqual([]);
    expect((await bazaar().listResources({ payTo: b.pay_to })).items.map((i) => i.resource)).toEqual([b.x402_url]);
    expect((await bazaar().listResources({ network: `eip155:${svc.deps.chain.chainId}`, scheme: 'exact', extensions: 'bazaar' })).pagination.total).toBe(2);
    expect((await bazaar().listResources({ network: 'eip155:1' })).items).toEqual([]);

    for (const item of all.items) {
      expect(item).toMatchObject({ type: 'http', mimeType: 'application/json', serviceName: 'Agent Goods' });
      expect(validateDiscoveryExtension(item.extensions!.bazaar as never)).toEqual({ valid: true });
      // The resource itself: 402 with the same accepts and the same bazaar declaration.
      const res = await fetch(local(item.resource));
      expect(res.status).toBe(402);
      const required = new x402HTTPClient(new x402Client()).getPaymentRequiredResponse((h) => res.headers.get(h), await res.json());
      expect(required.accepts).toEqual(item.accepts);
      expect(required.extensions?.bazaar).toEqual(item.extensions!.bazaar);
    }

    // A facilitator cataloging a real client's payload for it finds a GET endpoint at that URL.
    const payer = newPayer();
    const network = `eip155:${svc.deps.chain.chainId}` as const;
    const client = x402Client.fromConfig({
      schemes: [{ network, client: new ExactEvmScheme(payer) }],
      spendControls: { allowedAssets: [{ network, asset: svc.deps.chain.tokenAddress, maxAmountPerPayment: '100000000' }] },
    });
    const unpaid = await fetch(local(a.x402_url));
    const required = new x402HTTPClient(client).getPaymentRequiredResponse((h) => unpaid.headers.get(h), await unpaid.json());
    const payload = await client.createPaymentPayload(required);
    const found = extractDiscoveryInfo(payload, payload.accepted);
    expect(found).toMatchObject({ resourceUrl: a.x402_url, method: 'GET' });

    // A session that is not discoverable declares no bazaar metadata.
    const hiddenRes = await fetch(local(hidden.x402_url));
    expect(hiddenRes.status).toBe(402);
    expect((await hiddenRes.json()).extensions).not.toHaveProperty('bazaar');

    // Paid: no longer payable, no longer listed.
    const funded = newPayer();
    expect((await svc.deps.chain.faucet(funded.address, 10_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const paid = await payingFetch(funded, svc).fetch(local(a.x402_url));
    expect(paid.status).toBe(200);
    expect((await bazaar().listResources()).items.map((i) => i.resource)).toEqual([b.x402_url]);
  });

  it('lists a manual-capture session with the auth-capture requirement its x402_url answers; the real client pays it from the listing', async () => {
    const m = await createPayment({ description: 'Held rental', discoverable: true, capture_method: 'manual' });
    const item = (await bazaar().listResources()).items.find((i) => i.resource === m.x402_url)!;
    expect(item, 'listed').toBeDefined();
    const [req] = item.accepts as Array<{ scheme: string; amount: string; payTo: string; extra: Record<string, unknown> }>;
    expect(req).toMatchObject({ scheme: 'auth-capture', amount: '1500000', payTo: m.pay_to });
    expect(req!.extra).toMatchObject({ captureAuthorizer: svc.deps.chain.relayerAddress, captureMode: 'deferred' });
    // The extension's scheme filter sees it as what it is.
    expect((await bazaar().listResources({ scheme: 'auth-capture' })).items.map((i) => i.resource)).toEqual([m.x402_url]);
    expect((await bazaar().listResources({ scheme: 'exact' })).items.map((i) => i.resource)).not.toContain(m.x402_url);

    // The resource's own 402: the same requirement (its deadlines are "now + hold": the same second or the next) and the same bazaar.
    const res = await fetch(local(m.x402_url));
    expect(res.status).toBe(402);
    const required = new x402HTTPClient(new x402Client()).getPaymentRequiredResponse((h) => res.headers.get(h), await res.json());
    const [own] = required.accepts as unknown as Array<typeof req>;
    const { captureDeadline: cd, refundDeadline: rd, ...rest } = own!.extra;
    const { captureDeadline: lcd, refundDeadline: lrd, ...listedRest } = req!.extra;
    expect({ ...own, extra: rest, maxTimeoutSeconds: 0 }).toEqual({ ...req, extra: listedRest, maxTimeoutSeconds: 0 });
    expect(Number(cd) - Number(lcd)).toBeGreaterThanOrEqual(0);
    expect(Number(cd) - Number(lcd)).toBeLessThanOrEqual(5);
    expect(Number(rd) - Number(cd)).toBe(Number(lrd) - Number(lcd));
    expect(required.extensions?.bazaar).toEqual(item.extensions!.bazaar);
    expect(required.extensions).toHaveProperty('payment-identifier');

    // An agent that found it pays it with the unmodified AuthCaptureEvmScheme client: authorized, unlisted.
    const payer = newPayer();
    expect((await svc.deps.chain.faucet(payer.address, 1_500_000n, { nativeAmount: 0n })).ok).toBe(true);
    const paid = await authCaptureFetch(payer, svc.deps.chain)(local(item.resource));
    expect(paid.status, await paid.clone().text()).toBe(200);
    expect((await call(`${svc.api}/v1/payments/${m.id}`, { key: merchant.key })).body.status).toBe('authorized');
    expect((await bazaar().listResources()).items.map((i) => i.resource)).not.toContain(m.x402_url);
  });

  it('never lists a test-mode session, and its 402 declares no bazaar', async () => {
    const made = await call(`${svc.api}/keys`, { cookie: merchant.cookie, body: { label: 'sandbox', mode: 'test' } });
    expect(made.status).toBe(201);
    const res = await call(`${svc.api}/v1/payments`, { key: made.body.key.secret, body: { amount: 1, currency: 'USD', redirect_url: 'https://shop.example/done', discoverable: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await bazaar().listResources()).items.map((i) => i.resource)).not.toContain(res.body.x402_url);
    const own = await fetch(local(res.body.x402_url));
    expect(own.status).toBe(402);
    expect((await own.json()).extensions).not.toHaveProperty('bazaar');
  });

  it('is public and refuses a bad query with 400', async () => {
    const res = await call(`${svc.api}/x402/discovery/resources?limit=0`);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect((await call(`${svc.api}/x402/discovery/resources?limit=5`)).status).toBe(200);
  });
});
